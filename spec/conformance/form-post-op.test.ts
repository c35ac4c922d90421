import { certificationPlan } from './plan.js';

// The Form Post OP certification plan (oidcc-formpost-basic-certification-test-plan): the Basic OP's modules with
// response_mode=form_post, every answer (codes and errors alike) posted to the redirect URI.
certificationPlan('form_post');
