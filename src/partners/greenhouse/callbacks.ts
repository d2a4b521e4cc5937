// Greenhouse's callback: once a result is final (or changes), a PATCH of the `url` it gave with
// send_test, with no body, so that it fetches test_status at once instead of at its next hourly poll.
import type { CallbackFormat } from '../../modules/integrations/worker.js';

export const greenhouseCallbacks: CallbackFormat = {
  request({ callback }) {
    if (!callback.link.callbackUrl) return { notReady: 'Greenhouse gave no url for this test' };
    return { method: 'PATCH', url: callback.link.callbackUrl, headers: {}, body: '' };
  },
};
