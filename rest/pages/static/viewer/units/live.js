// Live colours: while a group colours the units, one GraphQL subscription
// (unitAttributeAssignmentChanges, graphql-transport-ws over a WebSocket to this page's
// origin) brings its changes, which go into the group's cached assignments and recolour
// the units they name. Without it (no flag or permission, over the key's cap, no
// WebSocket) the colours stay as loaded and nothing is said.
//
// Nothing is missed: a fresh subscription (no cursor yet) is sent before the group's
// assignments are read, and its changes wait for them; a dropped socket reconnects (1 s,
// 2 s, ... 30 s) and resumes after the last cursor seen. A resume the server refuses (a
// cursor it no longer keeps, say) reads the group anew and subscribes without a cursor.

import { FLAGS } from "../api.js";

const CHANGES = `subscription ViewerChanges($group: ID!, $asset: ID, $after: String) {
  unitAttributeAssignmentChanges(groupId: $group, assetId: $asset, after: $after) {
    change at cursor assignment { groupId attributeId assetId unitId } } }`;

const RETRY_MS = [1000, 2000, 4000, 8000, 16000, 30000];
const NEVER_CONNECTED_TRIES = 3; // a socket that never opened (no WebSocket behind a proxy)
const READY_WAIT_MS = 1500; // the longest the first read of a group waits for the socket
const FINAL_CLOSES = new Set([4400, 4401, 4403, 4409]); // the server will not take it again
// Refusals that pass: a resume refused so tries again later, with its cursor (the
// dropped socket's subscription may still hold the key's slot for a moment).
const TRANSIENT = new Set(["TOO_MANY_SUBSCRIPTIONS", "RATE_LIMITED", "SERVICE_UNAVAILABLE"]);

function codeOf(errors) {
  const first = Array.isArray(errors) ? errors[0] : null;
  return (first && first.extensions && first.extensions.code) || "ERROR";
}

export class Live {
  // onChange(groupId, byUnit, unitId): one unit's assignments changed in byUnit.
  // onReset(groupId): the group's cached assignments were dropped; read and draw it anew.
  constructor(app, onChange, onReset) {
    this.app = app;
    this.onChange = onChange;
    this.onReset = onReset;
    this.group = null; // the followed group
    this.cursor = null; // the last change's cursor of that group
    this.socket = null;
    this.acked = false;
    this.everAcked = false;
    this.operation = null; // id of the open subscription
    this.resuming = false; // it was sent with a cursor
    this.nextId = 1;
    this.tries = 0;
    this.timer = null;
    this.applying = Promise.resolve(); // changes are applied one after the other
    this.waiting = []; // follow()'s callers, told once the subscription is sent
    this.state("off");
  }

  state(value) {
    document.getElementById("legend").dataset.live = value;
  }

  // Follow `groupId` (null: none). The promise settles once the subscription is sent (or
  // cannot be), so that the caller reads the group's assignments after it: a change
  // between the two is then not lost (applying one twice changes nothing).
  follow(groupId) {
    if (groupId === this.group) {
      return Promise.resolve();
    }
    this.unsubscribe();
    this.group = groupId;
    this.cursor = null;
    if (!groupId || typeof WebSocket !== "function" || !this.app.key) {
      this.close("off");
      return Promise.resolve();
    }
    const ready = new Promise((resolve) => {
      this.waiting.push(resolve);
      setTimeout(resolve, READY_WAIT_MS);
    });
    if (this.acked) {
      this.subscribe();
    } else if (!this.socket && !this.timer) {
      this.connect();
    }
    return ready;
  }

  unsubscribe() {
    clearTimeout(this.timer); // a retry of the group left
    this.timer = null;
    if (this.operation && this.acked) {
      this.send({ id: this.operation, type: "complete" });
    }
    this.operation = null;
    if (this.group) {
      this.app.attributes.forget(this.group); // no longer followed: read anew when shown
    }
  }

  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    let socket;
    try {
      socket = new WebSocket(`${scheme}//${window.location.host}/graphql`, "graphql-transport-ws");
    } catch {
      this.close("off");
      return;
    }
    socket.binaryType = "arraybuffer"; // this server sends its JSON in binary frames
    this.socket = socket;
    this.acked = false;
    this.state("connecting");
    socket.onopen = () =>
      this.send({
        type: "connection_init",
        payload: { "API-Key": this.app.key, "Experimental-Flags": FLAGS },
      });
    socket.onmessage = (event) => socket === this.socket && this.receive(event.data);
    socket.onclose = (event) => socket === this.socket && this.closed(event.code);
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
    }
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
    } catch {
      return;
    }
    if (message.type === "connection_ack") {
      this.acked = true;
      this.everAcked = true;
      this.tries = 0;
      if (this.group) {
        this.subscribe();
      }
    } else if (message.type === "ping") {
      this.send({ type: "pong" });
    } else if (message.id !== this.operation) {
      return; // an earlier group's last words
    } else if (message.type === "next") {
      this.next(message.payload || {});
    } else if (message.type === "error") {
      this.refused(message.payload);
    } else if (message.type === "complete") {
      // The server ended it (a subscriber too far behind): resume after the last cursor.
      this.operation = null;
      this.retry();
    }
  }

  next(payload) {
    const change = payload.data && payload.data.unitAttributeAssignmentChanges;
    if (!change) {
      // It failed on the way: end it, and resume after the last cursor.
      this.send({ id: this.operation, type: "complete" });
      this.operation = null;
      this.retry();
      return;
    }
    this.tries = 0;
    this.cursor = change.cursor;
    const group = this.group;
    this.applying = this.applying.then(() => this.apply(group, change)).catch(() => {});
  }

  subscribe() {
    this.operation = String(this.nextId++);
    this.resuming = this.cursor !== null;
    this.send({
      id: this.operation,
      type: "subscribe",
      payload: {
        query: CHANGES,
        variables: { group: this.group, asset: this.app.map.assetId || null, after: this.cursor },
      },
    });
    this.state("on");
    if (!this.resuming) {
      // From now on: what was read of the group before may lack a change, read it anew.
      this.app.attributes.forget(this.group);
      if (document.getElementById("legend").dataset.groupId === this.group) {
        this.onReset(this.group);
      }
    }
    for (const resolve of this.waiting.splice(0)) {
      resolve();
    }
  }

  async apply(group, { change, assignment }) {
    if (group !== this.group || assignment.groupId !== group) {
      return;
    }
    const byUnit = await this.app.attributes.loadAssignments(group); // once it is read
    const { unitId, attributeId } = assignment;
    const held = (byUnit.get(unitId) || []).filter((id) => id !== attributeId);
    if (change === "assigned") {
      held.push(attributeId);
    }
    if (held.length) {
      byUnit.set(unitId, held);
    } else {
      byUnit.delete(unitId);
    }
    this.onChange(group, byUnit, unitId);
  }

  // An `error` for the subscription: refused before its first change.
  refused(errors) {
    this.operation = null;
    const code = codeOf(errors);
    if (this.resuming && TRANSIENT.has(code)) {
      this.retry();
    } else if (this.resuming) {
      this.cursor = null; // read the group anew and follow it from now
      this.subscribe();
    } else {
      this.close("off"); // not available to this key: the colours stay as loaded
    }
  }

  closed(code) {
    this.socket = null;
    this.acked = false;
    this.operation = null;
    for (const resolve of this.waiting.splice(0)) {
      resolve(); // the first read of the group does not wait for a retry
    }
    const hopeless = !this.everAcked && this.tries + 1 >= NEVER_CONNECTED_TRIES;
    if (!this.group || FINAL_CLOSES.has(code) || hopeless) {
      this.close("off");
    } else {
      this.retry();
    }
  }

  retry() {
    clearTimeout(this.timer);
    const delay = RETRY_MS[Math.min(this.tries, RETRY_MS.length - 1)];
    this.tries += 1;
    this.state("retrying");
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.acked) {
        this.subscribe();
      } else if (!this.socket) {
        this.connect();
      }
    }, delay);
  }

  close(state) {
    clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    this.acked = false;
    this.operation = null;
    if (socket) {
      socket.close(1000);
    }
    this.state(state);
  }
}
