/**
 * The local stand-in for Google's Picker loader (`https://apis.google.com/js/api.js`): the same
 * globals the console uses (`gapi.load('picker', …)`, `google.picker.PickerBuilder` with
 * `addView`, `setOAuthToken`, `setAppId`, `setDeveloperKey`, `setCallback`, `build().setVisible`,
 * and the `Response`, `Action`, `Document` and `ViewId` names), over the local provider's Drive
 * files list with the OAuth token, shown as a dialog in the page. Styles are set through the
 * CSSOM, which the console's Content-Security-Policy allows (no inline style attributes).
 */
export const pickerScript = (origin: string): string => `(() => {
  const ORIGIN = ${JSON.stringify(origin)};
  const Response = { ACTION: 'action', DOCUMENTS: 'docs' };
  const Action = { PICKED: 'picked', CANCEL: 'cancel', LOADED: 'loaded' };
  const Document = { ID: 'id', NAME: 'name', MIME_TYPE: 'mimeType', URL: 'url' };
  const ViewId = { SPREADSHEETS: 'spreadsheets' };
  const MIME = { spreadsheets: 'application/vnd.google-apps.spreadsheet' };
  const styled = (element, style) => { Object.assign(element.style, style); return element; };

  class Picker {
    constructor(options) { this.options = options; this.dialog = null; }
    setVisible(visible) {
      if (!visible) { this.dialog?.remove(); this.dialog = null; return; }
      if (!this.dialog) void this.open();
    }
    dispose() { this.setVisible(false); }
    async open() {
      const { token, views, callback } = this.options;
      const dialog = styled(document.createElement('div'), {
        position: 'fixed', inset: '10% 20%', background: '#ffffff', color: '#1f1f1f',
        border: '1px solid #5f6368', padding: '1rem', overflow: 'auto', zIndex: '1000',
      });
      dialog.setAttribute('role', 'dialog');
      dialog.setAttribute('aria-modal', 'true');
      dialog.setAttribute('aria-labelledby', 'local-picker-title');
      const title = document.createElement('h2');
      title.id = 'local-picker-title';
      title.textContent = 'Select a file';
      dialog.append(title);
      this.dialog = dialog;
      document.body.append(dialog);
      const finish = (data) => { this.setVisible(false); callback?.(data); };
      const mime = views.map((view) => MIME[view]).filter(Boolean);
      const query = mime.map((type) => "mimeType='" + type + "'").join(' or ');
      const answer = await fetch(ORIGIN + '/drive/v3/files?q=' + encodeURIComponent(query) + '&fields=files(id,name,mimeType)', {
        headers: { Authorization: 'Bearer ' + token },
      });
      const list = document.createElement('ul');
      if (!answer.ok) {
        const error = document.createElement('p');
        error.setAttribute('role', 'alert');
        error.textContent = 'The files could not be listed (' + answer.status + ')';
        dialog.append(error);
      } else {
        for (const file of (await answer.json()).files) {
          const item = document.createElement('li');
          const choose = document.createElement('button');
          choose.type = 'button';
          choose.textContent = file.name;
          choose.addEventListener('click', () => finish({
            [Response.ACTION]: Action.PICKED,
            [Response.DOCUMENTS]: [{ id: file.id, name: file.name, mimeType: file.mimeType,
              url: ORIGIN + '/spreadsheets/d/' + encodeURIComponent(file.id) + '/edit' }],
          }));
          item.append(choose);
          list.append(item);
        }
      }
      const cancel = document.createElement('button');
      cancel.type = 'button';
      cancel.textContent = 'Cancel';
      cancel.addEventListener('click', () => finish({ [Response.ACTION]: Action.CANCEL }));
      dialog.append(list, cancel);
      (list.querySelector('button') ?? cancel).focus();
    }
  }

  class PickerBuilder {
    constructor() { this.options = { views: [] }; }
    addView(view) { this.options.views.push(typeof view === 'string' ? view : view.id); return this; }
    setOAuthToken(token) { this.options.token = token; return this; }
    setAppId(appId) { this.options.appId = appId; return this; }
    setDeveloperKey(key) { this.options.developerKey = key; return this; }
    setOrigin(origin) { this.options.origin = origin; return this; }
    setCallback(callback) { this.options.callback = callback; return this; }
    setTitle(title) { this.options.title = title; return this; }
    build() { return new Picker(this.options); }
  }

  window.google = window.google || {};
  window.google.picker = { PickerBuilder, Response, Action, Document, ViewId };
  window.gapi = { load: (name, callback) => { const done = typeof callback === 'function' ? callback : callback?.callback; setTimeout(() => done?.(), 0); } };
})();
`;
