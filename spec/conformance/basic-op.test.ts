import { certificationPlan } from './plan.js';

// The Basic OP certification plan (oidcc-basic-certification-test-plan): the code flow, answers in the query.
certificationPlan('query');
