import { inAppProvider } from './in-app-provider.js';
import { certificationPlan } from './plan.js';

// The Form Post OP certification plan against the in-app authorization server.
certificationPlan('form_post', { start: inAppProvider, label: ' (in-app server)' });
