// The deadline countdown of the header.

export class Countdown {
  constructor(el) {
    this.el = el;
    this.deadline = null;
    this.timer = setInterval(() => this.tick(), 250);
  }

  /** The deadline in milliseconds since the epoch, or null for none. */
  set(deadline) {
    this.deadline = deadline;
    this.tick();
  }

  tick() {
    if (this.deadline === null) {
      this.el.textContent = "no deadline";
      this.el.classList.remove("urgent");
      return;
    }
    const left = Math.max(0, Math.round((this.deadline - Date.now()) / 1000));
    const minutes = Math.floor(left / 60);
    const seconds = String(left % 60).padStart(2, "0");
    this.el.textContent = left >= 3600 ? `${Math.floor(minutes / 60)}h ${minutes % 60}m` : `${minutes}:${seconds}`;
    this.el.classList.toggle("urgent", left <= 10);
  }

  stop() {
    clearInterval(this.timer);
  }
}
