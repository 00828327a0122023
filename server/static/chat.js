// The chat: one conversation per power through the negotiation server. The person writes restricted English,
// the dialogue assistant (on the game server) turns it into L, and incoming L is shown in English.
// Notes (phase dividers, deals confirmed, promises accepted, expiries, conflicts, compliance) say what the
// server's frames say, in the words of docs/negotiation.md: "confirmed" only for a `confirmed` frame. After a
// reload they come back from the server (the welcome's `notes`, made from its stored records), in their place
// among the messages of the mail.

import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { alerts } from "./alerts.js";
import { FULL, POWERS, abbr, nameOf, phaseName } from "./powers.js";

const ANSWERS = /^(accept|reject|withdraw)\(/;
const OPENS = /^(propose|query)\(/;
const RECEIVERS = /^\s*\w+\s*\(\s*\w+\s*,\s*\[?\s*([a-z]{3}(?:\s+[a-z]{3})*)\s*\]?/i;

/** The powers an L message is to, as tokens: `propose(fra, [eng ger], ...)` is to ENG and GER. */
function receiversOf(l) {
  const found = RECEIVERS.exec(l);
  return found ? found[1].split(/\s+/).map((p) => p.toUpperCase()) : [];
}

export class ChatPanel {
  /** `me` is the person's power (ENG), `link` a NegoLink already connecting, `onUnread(total)` for the title. */
  constructor(root, { game, me, link, onUnread }) {
    this.root = root;
    this.game = game;
    this.me = me;
    this.meFull = FULL[me];
    this.link = link;
    this.onUnread = onUnread || (() => {});
    this.open = false;
    this.active = null;
    this.seenKey = `detente.seen.${game}.${me}`;
    this.seen = Number(localStorage.getItem(this.seenKey) || 0);
    this.conversations = new Map();
    this.replay = null; // {notes, left}: the welcome's notes, put back among the `left` messages of the mail to come
    this.build();
    link.addEventListener("frame", (event) => this.frame(event.detail));
    link.addEventListener("down", () => this.setState("Reconnecting to the negotiation server…"));
  }

  build() {
    this.tabs = h("nav", { class: "conversations", "aria-label": "conversations" });
    this.title = h("h2", { class: "chat-title" });
    this.threads = h("div", { class: "threads" });
    this.state = h("p", { class: "chat-state", id: "chat-state" }, "Connecting to the negotiation server…");
    this.input = h("textarea", {
      id: "chat-input",
      rows: 2,
      placeholder: "Write to them in English: I propose peace",
      onkeydown: (event) => {
        if (event.key === "Enter" && !event.shiftKey) {
          event.preventDefault();
          this.send();
        }
      },
    });
    this.sendButton = h("button", { type: "button", id: "chat-send", class: "primary", onclick: () => this.send() }, "Send");
    this.expert = h("input", { type: "checkbox", id: "expert", onchange: () => this.expertChanged() });
    this.showL = h("input", {
      type: "checkbox",
      id: "show-l",
      onchange: () => this.threads.classList.toggle("show-l", this.showL.checked),
    });
    this.feedback = h("div", { class: "chat-feedback", id: "chat-feedback", "aria-live": "polite" });
    const options = h(
      "div",
      { class: "chat-options" },
      h("label", { class: "check" }, this.expert, " expert: write L"),
      h("label", { class: "check" }, this.showL, " show the L"),
    );
    this.compose = h("div", { class: "compose" }, this.input, this.sendButton);
    fill(this.root, this.tabs, this.title, this.state, this.threads, this.feedback, this.compose, options);
    for (const power of POWERS) {
      if (power === this.me) continue;
      const badge = h("span", { class: "badge", hidden: true });
      const tab = h(
        "button",
        { type: "button", class: "conv", "data-conv": power, onclick: () => this.select(power) },
        h("span", { class: `dot power-${power}` }),
        nameOf(power),
        badge,
      );
      const list = h("ol", { class: "messages", "data-conv": power, hidden: true });
      this.conversations.set(power, { power, tab, badge, list, unread: 0, openProposal: null, items: 0 });
      this.tabs.append(tab);
      this.threads.append(list);
    }
    this.select(POWERS.find((p) => p !== this.me));
    this.setOpen(false);
  }

  select(power) {
    this.active = power;
    for (const conv of this.conversations.values()) {
      const on = conv.power === power;
      conv.tab.classList.toggle("active", on);
      conv.tab.setAttribute("aria-selected", on ? "true" : "false");
      conv.list.hidden = !on;
      if (on) {
        conv.unread = 0;
        conv.badge.hidden = true;
      }
    }
    fill(this.title, h("span", { class: `dot power-${power}` }), `Conversation with ${nameOf(power)}`);
    this.feedback.replaceChildren();
    this.reportUnread();
    this.scroll();
  }

  setState(text) {
    this.state.textContent = text;
    this.state.hidden = !text;
  }

  setOpen(open) {
    this.open = open;
    this.input.disabled = !open;
    this.sendButton.disabled = !open;
    if (this.link.up) this.setState(open ? "" : "Press is closed in this phase.");
  }

  expertChanged() {
    this.input.placeholder = this.expert.checked
      ? `L: propose(${this.me.toLowerCase()}, [${(this.active || "fra").toLowerCase()}], Agree([...], pce([...])))`
      : "Write to them in English: I propose peace";
  }

  reportUnread() {
    let total = 0;
    for (const conv of this.conversations.values()) total += conv.unread;
    this.onUnread(total);
  }

  scroll() {
    const conv = this.conversations.get(this.active);
    if (conv) conv.list.lastElementChild?.scrollIntoView({ block: "end" });
  }

  // --- frames --------------------------------------------------------------------------------

  frame(frame) {
    switch (frame.type) {
      case "welcome":
        for (const conv of this.conversations.values()) {
          conv.list.replaceChildren();
          conv.openProposal = null;
        }
        this.setState("");
        this.setOpen(Boolean(frame.open));
        this.levels = frame.levels;
        this.phase = frame.phase;
        this.replay = { notes: Array.isArray(frame.notes) ? [...frame.notes] : [], left: Number(frame.mail || 0) };
        if (this.replay.left <= 0) this.endReplay();
        break;
      case "message":
        if (this.replay) this.replayNotes(frame.seq);
        this.message(frame);
        if (this.replay && --this.replay.left <= 0) this.endReplay();
        break;
      case "phase":
        this.phase = frame.phase;
        this.feedback.replaceChildren();
        this.setOpen(Boolean(frame.open));
        this.showNote(frame);
        break;
      case "over":
        this.showNote(frame);
        this.setOpen(false);
        break;
      case "expired":
      case "confirmed":
      case "accepted":
      case "pending":
      case "unbound":
      case "undelivered":
      case "conflict":
      case "compliance":
        this.showNote(frame);
        break;
      case "error":
        if (frame.code === "auth") this.setState("The negotiation server did not accept this seat.");
        else if (frame.code === "replaced") this.setState("Your seat's negotiation is open in another window or browser.");
        else this.showError(frame);
        break;
      default:
        break;
    }
  }

  /** A message frame: to the person (from another power), or one of the person's own (in the mail). */
  message(frame) {
    const from = abbr(frame.from) || frame.from;
    const mine = from === this.me;
    const others = mine ? frame.to.map((p) => abbr(p) || p) : [from];
    for (const power of others) {
      const conv = this.conversations.get(power);
      if (!conv) continue;
      this.track(conv, frame.text);
      this.addMessage(conv, { mine, from, l: frame.text, seq: frame.seq, phase: frame.phase });
      if (!mine && frame.seq > this.seen) {
        if (power !== this.active || document.hidden) {
          conv.unread += 1;
          conv.badge.hidden = false;
          conv.badge.textContent = String(conv.unread);
        }
        alerts.message(nameOf(from));
      }
    }
    if (frame.seq > this.seen) {
      this.seen = frame.seq;
      localStorage.setItem(this.seenKey, String(this.seen));
    }
    this.reportUnread();
  }

  /** Keep the open proposal (or question) of a conversation, which a bare "yes" or "no" answers. */
  track(conv, l) {
    if (OPENS.test(l)) conv.openProposal = l;
    else if (ANSWERS.test(l)) conv.openProposal = null;
  }

  addMessage(conv, { mine, from, l, seq = null, phase = null, english = null, said = null }) {
    const body = h("div", { class: "english" }, english || "…");
    const item = h(
      "li",
      { class: ["msg", mine ? "out" : "in"], "data-seq": seq === null ? "" : String(seq), "data-from": from },
      h("div", { class: "who" }, h("span", { class: `dot power-${from}` }), mine ? "You" : nameOf(from), phase ? h("span", { class: "phase" }, phase) : null),
      body,
      said && said !== english ? h("div", { class: "said" }, `you wrote: “${said}”`) : null,
      h("code", { class: "l" }, l),
    );
    conv.list.append(item);
    if (!english) api.render(l, this.meFull).then((text) => (body.textContent = text));
    if (conv.power === this.active) this.scroll();
  }

  /** A note in `power`'s conversation, in its place now: `text` is a string, or a promise of one (rendered English). */
  note(power, text, kind = "note") {
    const conv = this.conversations.get(power);
    if (!conv) return;
    const item = h("li", { class: ["note", kind] }, typeof text === "string" ? text : "…");
    conv.list.append(item);
    if (typeof text !== "string") {
      Promise.resolve(text).then((said) => {
        item.textContent = said;
        if (power === this.active) this.scroll();
      });
    }
    if (power === this.active) this.scroll();
  }

  // --- notes: what the server said about deals and phases, live or replayed after a reload ----------------

  /** The welcome's notes made before the message `seq` go in before it. */
  replayNotes(seq) {
    const notes = this.replay.notes;
    while (notes.length && Number(notes[0].after || 0) < seq) this.showNote(notes.shift());
  }

  endReplay() {
    const notes = this.replay ? this.replay.notes : [];
    this.replay = null;
    for (const note of notes) this.showNote(note);
  }

  /** The other powers of a frame's `participants` (the conversations its note goes to). */
  others(frame) {
    return [...new Set((frame.participants || []).map((p) => abbr(p) || p))].filter((p) => p && p !== this.me);
  }

  /** A note frame shown in the conversations it concerns (its words: docs/negotiation.md, "What the page shows"). */
  showNote(frame) {
    const deal = () => api.renderDeal(frame.deal, this.meFull);
    const promise = Boolean(frame.promise);
    switch (frame.type) {
      case "phase":
        for (const conv of this.conversations.values()) {
          if (conv.list.children.length) this.note(conv.power, `— ${phaseName(frame.phase)} —`, "divider");
          conv.openProposal = null;
        }
        break;
      case "over":
        for (const conv of this.conversations.values()) this.note(conv.power, "The game is over.", "divider");
        break;
      case "expired":
        this.expired(frame);
        break;
      case "confirmed":
        this.dealNote(frame, deal().then((english) => `Deal confirmed: ${english}`));
        break;
      case "accepted":
        this.dealNote(frame, deal().then((english) => `Promise accepted (it now holds its sender): ${english}`));
        break;
      case "pending": // binding games: agreed, not yet held by the game server
        this.dealNote(
          frame,
          deal().then((english) =>
            promise
              ? `Promise accepted, waiting for the game server to make it binding: ${english}`
              : `Deal agreed, not confirmed yet: waiting for the game server to make it binding: ${english}`,
          ),
        );
        break;
      case "unbound":
        this.dealNote(
          frame,
          deal().then(
            (english) => `${promise ? "Promise" : "Deal"} not made binding, so not confirmed: ${english} (${frame.reason})`,
          ),
        );
        break;
      case "conflict": {
        const other = frame.with && frame.with !== frame.deal ? api.renderDeal(frame.with, this.meFull) : null;
        const text = Promise.all([deal(), other]).then(([english, clash]) => {
          const what = promise ? "This promise contradicts" : "This deal cannot be confirmed: it contradicts";
          const against = clash ? `“${clash}”, agreed earlier this phase` : "itself";
          return `${what} ${against}: ${english} — ${frame.reason}`;
        });
        const powers = this.others(frame);
        for (const power of powers.length ? powers : [this.active]) this.note(power, text, "conflict");
        break;
      }
      case "compliance":
        this.compliance(frame);
        break;
      case "undelivered":
        for (const power of (frame.to || []).map((p) => abbr(p) || p)) {
          this.note(power, `Not delivered to ${nameOf(power)}: ${frame.reason}`, "undelivered");
        }
        break;
      default:
        break;
    }
  }

  dealNote(frame, text) {
    for (const power of this.others(frame)) this.note(power, text, frame.type);
  }

  expired(frame) {
    const from = abbr(frame.from);
    const others = from === this.me ? frame.to.map(abbr) : [from];
    const text = api.render(frame.text, this.meFull).then((english) => `Expired unanswered: ${english}`);
    for (const power of others) {
      const conv = this.conversations.get(power);
      if (!conv) continue;
      if (conv.openProposal === frame.text) conv.openProposal = null;
      this.note(power, text, "expired");
    }
  }

  compliance(frame) {
    const lines = (frame.reports || []).map(
      (r) => `${abbr(r.power) === this.me ? "you" : nameOf(r.power)} ${r.kept ? "kept" : "broke"} it${r.detail ? ` (${r.detail})` : ""}`,
    );
    // every other party hears it in its conversation, the breaker's own promise included
    const powers = new Set([...this.others(frame), ...(frame.reports || []).map((r) => abbr(r.power))]);
    powers.delete(this.me);
    const what = frame.promise ? "promise" : "deal";
    const text = api
      .renderDeal(frame.deal, this.meFull)
      .then((english) => `After ${phaseName(frame.phase)}, on the ${what} “${english}”: ${lines.join("; ")}`);
    for (const power of powers) this.note(power, text, "compliance");
  }

  showError(frame) {
    const where = frame.line ? ` (line ${frame.line}, column ${frame.column})` : "";
    fill(this.feedback, h("p", { class: "bad" }, `Not sent — ${frame.code}: ${frame.message}${where}`));
  }

  // --- sending -------------------------------------------------------------------------------

  async send() {
    const text = this.input.value.trim();
    const conv = this.conversations.get(this.active);
    if (!text || !conv || !this.open) return;
    this.sendButton.disabled = true;
    try {
      if (this.expert.checked) {
        await this.say(conv, text, null, text);
        return;
      }
      const understood = await api.understand({
        game: this.game,
        sender: this.meFull,
        receiver: FULL[conv.power],
        text,
        open_proposal: conv.openProposal,
      });
      if (understood.ok) {
        await this.say(conv, understood.l, understood.echo, text, understood.note);
      } else {
        this.notUnderstood(conv, understood);
      }
    } catch (error) {
      fill(this.feedback, h("p", { class: "bad" }, `Not sent: ${error.message}`));
    } finally {
      this.sendButton.disabled = !this.open;
    }
  }

  async say(conv, l, echo, said, note = null) {
    const answer = await this.link.say(l);
    if (answer.type !== "ack") {
      this.showError(answer);
      return false;
    }
    const english = echo || (await api.render(l, this.meFull));
    // a message to several powers is in each of their conversations, as the mail puts it after a reload
    const named = receiversOf(l).map((p) => this.conversations.get(p)).filter((c) => c && c !== conv);
    for (const each of [conv, ...named]) {
      this.track(each, l);
      this.addMessage(each, { mine: true, from: this.me, l, english, said, phase: this.phase });
    }
    // the note says what the words became ("sent as a proposal to Austria: ..."), and any word read otherwise
    fill(this.feedback, h("p", { class: "ok" }, `Understood and sent: ${english}`), note ? h("p", { class: "note" }, note) : null);
    this.input.value = "";
    return true;
  }

  notUnderstood(conv, answer) {
    // a greeting or thanks is no mistake: nothing is sent, and it says so kindly
    const parts = [h("p", { class: answer.kind === "no_l" ? "ok" : "bad" }, answer.reason)];
    if (answer.closest) {
      parts.push(
        h(
          "div",
          { class: "closest" },
          h("span", {}, "The closest I can say: "),
          h("strong", {}, answer.closest_echo || answer.closest),
          h("code", { class: "l" }, answer.closest),
          h(
            "button",
            {
              type: "button",
              id: "send-closest",
              onclick: () => this.say(conv, answer.closest, answer.closest_echo, this.input.value.trim()),
            },
            "Send that",
          ),
        ),
      );
    }
    fill(this.feedback, ...parts);
  }

  close() {
    this.link.close();
  }
}

