// Sound and visual alerts for new messages and new phases; muting is remembered.

import { $ } from "./dom.js";

const KEY = "detente.muted";
let context = null;
let muted = localStorage.getItem(KEY) === "1";
let unread = 0;
const baseTitle = document.title;

// Browsers allow sound only after a gesture: the audio context is made on the first one.
function unlock() {
  if (!context && window.AudioContext) context = new AudioContext();
}
document.addEventListener("pointerdown", unlock, { once: true });
document.addEventListener("keydown", unlock, { once: true });

function beep(frequencies) {
  if (muted || !context) return;
  let at = context.currentTime;
  for (const frequency of frequencies) {
    const osc = context.createOscillator();
    const gain = context.createGain();
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0.08, at);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.18);
    osc.connect(gain).connect(context.destination);
    osc.start(at);
    osc.stop(at + 0.2);
    at += 0.16;
  }
}

function toast(text, kind) {
  const box = $("#toast");
  if (!box) return;
  box.textContent = text;
  box.className = `toast show ${kind}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.className = "toast"), 3500);
}

function updateTitle() {
  document.title = unread > 0 ? `(${unread}) ${baseTitle}` : baseTitle;
}

export const alerts = {
  get muted() {
    return muted;
  },
  setMuted(value) {
    muted = value;
    localStorage.setItem(KEY, value ? "1" : "0");
  },
  message(from) {
    beep([880]);
    if (!muted) toast(`New message from ${from}`, "message");
  },
  phase(name) {
    beep([523, 784]);
    if (!muted) toast(`New phase: ${name}`, "phase");
  },
  setUnread(count) {
    unread = count;
    updateTitle();
  },
  notice(text) {
    toast(text, "notice");
  },
};
