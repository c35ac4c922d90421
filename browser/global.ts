/**
 * Script-tag entry (`dist/browser/jquery.rest.js`): attaches `$.RestClient` to the page's
 * global jQuery. Load it after jQuery.
 */
import { RestClientError } from './errors.js';
import { restClient } from './index.js';
import type { JQueryLike } from './types.js';

const page = globalThis as { jQuery?: JQueryLike };
if (!page.jQuery) throw new RestClientError('no_jquery', 'load jQuery before jquery.rest.js');
restClient(page.jQuery);
