import { inAppProvider } from './in-app-provider.js';
import { certificationPlan } from './plan.js';

// The Basic OP certification plan against the in-app authorization server: the app's `url` as the issuer.
certificationPlan('query', { start: inAppProvider, label: ' (in-app server)' });
