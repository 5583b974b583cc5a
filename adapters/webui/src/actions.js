// What an admin may do to a node from the page: cordon, uncordon, drain
// (with a grace period) and undrain, each after a confirmation. herd
// records each in its audit log under the signed-in user; the buttons
// are shown only to users herd says may act.

import { send } from './api.js';
import { esc, errorBox } from './dom.js';

const dialog = () => document.getElementById('confirm');

// confirmAction asks the question in the page's dialog; extra is HTML
// for inputs the action reads. It resolves true on Confirm.
export function confirmAction(question, extra = '') {
  const d = dialog();
  d.querySelector('#confirm-text').textContent = question;
  d.querySelector('#confirm-extra').innerHTML = extra;
  d.returnValue = '';
  d.showModal();
  return new Promise((resolve) => {
    d.addEventListener('close', () => resolve(d.returnValue === 'ok'), { once: true });
  });
}

const nodePath = (name) => `/api/v1/nodes/${encodeURIComponent(name)}`;
const drainPath = (name) => `/apis/herd.dev/v1/nodes/${encodeURIComponent(name)}/drain`;

// nodeActions draws the buttons that fit the node's state into el;
// after an action, done() redraws the page.
export function nodeActions(el, node, s, done) {
  const name = node.metadata.name;
  const draining = s.agent === 'Draining' || s.agent === 'Drained';
  const actions = [];
  if (!s.unschedulable) {
    actions.push(['cordon', 'Cordon', `Cordon ${name}? No new pod will be placed on it; its pods stay.`, '',
      () => send('PATCH', nodePath(name), { spec: { unschedulable: true } }, 'application/strategic-merge-patch+json')]);
  } else if (!draining) {
    actions.push(['uncordon', 'Uncordon', `Uncordon ${name}? Pods may be placed on it again.`, '',
      () => send('PATCH', nodePath(name), { spec: { unschedulable: null } }, 'application/strategic-merge-patch+json')]);
  }
  if (!draining) {
    actions.push(['drain', 'Drain', `Drain ${name}? It is cordoned and every pod on it is asked to stop, within its disruption budgets.`,
      '<label>Grace period (seconds, empty for each pod\'s own) <input id="grace-period" type="number" min="0" step="1"></label>',
      () => {
        const v = document.getElementById('grace-period').value;
        return send('POST', drainPath(name), v === '' ? {} : { gracePeriodSeconds: Number(v) });
      }]);
  } else {
    actions.push(['undrain', 'Undrain', `Stop draining ${name} and uncordon it?`, '', () => send('DELETE', drainPath(name))]);
  }
  el.innerHTML = `<div class="actions">${actions.map(([id, label]) => `<button id="${id}" type="button" class="${id === 'drain' ? 'danger' : ''}">${esc(label)}</button>`).join(' ')}</div>`;
  for (const [id, , question, extra, run] of actions) {
    el.querySelector('#' + id).addEventListener('click', async () => {
      // The dialog keeps its inputs after it closes: run reads them then.
      if (!(await confirmAction(question, extra))) return;
      // The result stays while the page redraws the node.
      const result = document.getElementById('action-result');
      try {
        await run();
        result.innerHTML = `<p class="ok">${esc(id)}: done.</p>`;
        done();
      } catch (e) {
        result.innerHTML = errorBox(e);
      }
    });
  }
}
