/*
 * The approver console's script, served as /console/script.js (the CSP admits no inline
 * script). Hand-written, no framework, no build step: the pages work without it; it adds the
 * live list (SSE /console/events), the countdowns (from the server's clock, data-now), and
 * decisions sent with fetch (the CSRF token in X-CSRF-Token) whose result or problem is
 * announced in the page's aria-live region. New and settled approvals are read as the
 * server renders them (the approval's own page), so every value the page shows is escaped by
 * the server; the script sets text only through textContent. Whenever the page moves, the
 * decision buttons ignore pointer clicks for a moment (arm), so that no click decides an
 * approval the approver has not had time to see. A static asset of the Worker
 * (wrangler.toml [assets]), outside its bundle.
 */
"use strict";
(() => {
  const body = document.body;
  const serverNow = Number(body.getAttribute("data-now"));
  if (!(serverNow > 0)) return;
  const offsetMs = serverNow * 1000 - Date.now();
  const csrfMeta = document.querySelector('meta[name="csrf-token"]');
  const csrf = csrfMeta === null ? "" : csrfMeta.getAttribute("content") || "";
  const announce = document.getElementById("announce");
  const list = document.getElementById("pending-list");
  const count = document.getElementById("pending-count");
  const empty = document.getElementById("pending-empty");
  const decidedRows = document.getElementById("decided-rows");
  const liveStatus = document.getElementById("live-status");
  const APPROVAL_ID = /^apr_[0-9a-f]{32}$/;
  const ENDS_ITEM = ["APPROVAL_ALREADY_DECIDED", "APPROVAL_EXPIRED", "NOT_FOUND"];
  let ended = false;

  const nowSeconds = () => Math.floor((Date.now() + offsetMs) / 1000);
  const articleOf = (id) => document.getElementById("approval-" + id);
  const titleOf = (article) => {
    const link = article.querySelector("h3 a");
    return (link === null ? "approval" : link.textContent) + " (" + article.getAttribute("data-approval-id") + ")";
  };
  const iso = (seconds) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

  /**
   * After the page moves (an approval removed or added, the banner or the live status changed),
   * the decision buttons ignore pointer clicks for ARMING_MS and show it (aria-disabled, greyed):
   * otherwise the second click of a double click lands on the Approve of the approval that just
   * moved under the pointer, unseen. Keys are not held back: the focus reaches a decision button
   * only by the approver's own move, never by the list's.
   */
  const ARMING_MS = 800;
  let armedUntil = 0;
  let armTimer = 0;
  const decisionButtons = () => document.querySelectorAll("form.decision button");
  function arm() {
    armedUntil = performance.now() + ARMING_MS;
    for (const button of decisionButtons()) button.setAttribute("aria-disabled", "true");
    clearTimeout(armTimer);
    armTimer = setTimeout(() => {
      for (const button of decisionButtons()) button.removeAttribute("aria-disabled");
    }, ARMING_MS);
  }
  document.addEventListener(
    "click",
    (event) => {
      // detail is 0 for a click made by a key (Enter, Space), at least 1 for a pointer's.
      const button = event.target instanceof Element ? event.target.closest("form.decision button") : null;
      if (button !== null && event.detail !== 0 && performance.now() < armedUntil) event.preventDefault();
    },
    true,
  );

  function say(text, error) {
    if (announce === null) return;
    const line = document.createElement("p");
    line.textContent = text;
    if (error) line.className = "error";
    announce.replaceChildren(line);
    arm();
  }

  function setLive(text, withSignIn) {
    if (liveStatus === null) return;
    liveStatus.textContent = text;
    if (withSignIn) {
      const link = document.createElement("a");
      link.href = "/console";
      link.textContent = "Sign in again";
      liveStatus.append(" ", link, ".");
    }
    arm();
  }

  function sessionEnded() {
    if (ended) return;
    ended = true;
    if (source !== null) source.close();
    setLive("Your session has ended: nothing updates live, and decisions are refused.", true);
    say("Your session has ended. Sign in again to decide.", true);
  }

  function updateCount() {
    if (list === null) return;
    const n = list.querySelectorAll("article.approval").length;
    if (count !== null) count.textContent = String(n);
    if (empty !== null) empty.hidden = n !== 0;
  }

  function timeLeft(until) {
    const left = until - nowSeconds();
    if (left <= 0) return "expired";
    const minutes = Math.floor(left / 60);
    const seconds = String(left % 60).padStart(2, "0");
    return minutes > 0 ? minutes + " min " + seconds + " s" : left + " s";
  }

  function tick() {
    for (const article of document.querySelectorAll("article.approval")) {
      const text = timeLeft(Number(article.getAttribute("data-expires-at")));
      const countdown = article.querySelector(".countdown");
      if (countdown !== null && countdown.textContent !== text) countdown.textContent = text;
      if (text === "expired" && !article.classList.contains("expired")) {
        article.classList.add("expired");
        for (const button of article.querySelectorAll("form.decision button")) button.disabled = true;
        say(
          "Expired without a decision: " +
            titleOf(article) +
            ". It can no longer be decided; the agent's call is refused.",
        );
      }
    }
  }

  /** The server-rendered page of one approval (a live read: it does not count as activity). */
  async function approvalPage(id) {
    const res = await fetch("/console/approvals/" + id, {
      credentials: "same-origin",
      headers: { "x-console-live": "1" },
    });
    if (res.status === 401) {
      sessionEnded();
      return null;
    }
    return res.ok ? new DOMParser().parseFromString(await res.text(), "text/html") : null;
  }

  async function addPending(id) {
    if (list === null || articleOf(id) !== null) return;
    const page = await approvalPage(id);
    const article = page === null ? null : page.getElementById("approval-" + id);
    if (article === null || articleOf(id) !== null) return;
    list.append(document.importNode(article, true));
    updateCount();
    arm();
    tick();
    say("New approval waiting: " + titleOf(articleOf(id)) + ".");
  }

  async function addDecided(id) {
    if (decidedRows === null || document.getElementById("decided-" + id) !== null) return;
    const page = await approvalPage(id);
    const row = page === null ? null : page.getElementById("decided-" + id);
    if (row === null || document.getElementById("decided-" + id) !== null) return;
    decidedRows.prepend(document.importNode(row, true));
    const none = document.getElementById("decided-empty");
    if (none !== null) none.hidden = true;
    const table = document.getElementById("decided-table");
    if (table !== null) table.hidden = false;
  }

  /** Nobody holds the focus: a decision's button was disabled while it had it (the browser moved it to <body>). */
  const focusDropped = () => document.activeElement === null || document.activeElement === body;

  /**
   * Whether the focus belongs to this approval: inside it, or dropped from its decision's
   * disabled button and not moved since (data-focus-within, set when the decision started).
   */
  const holdsFocus = (article) =>
    article.contains(document.activeElement) || (article.hasAttribute("data-focus-within") && focusDropped());

  /**
   * Takes an approval off the pending list; answers whether it was there. If the focus was its
   * own, it moves to the next pending approval's first control (the first one's after the last),
   * or to the list's heading when none is left.
   */
  function removeItem(id) {
    const article = articleOf(id);
    if (article === null) return false;
    const hadFocus = holdsFocus(article);
    const next = article.nextElementSibling;
    article.remove();
    updateCount();
    arm();
    if (hadFocus) {
      const following =
        next !== null && next.matches("article.approval")
          ? next
          : list === null
            ? null
            : list.querySelector("article.approval");
      const target = following === null ? document.getElementById("pending-heading") : following.querySelector("h3 a");
      if (target !== null) {
        if (target.tabIndex < 0) target.setAttribute("tabindex", "-1");
        target.focus();
      }
    }
    return true;
  }

  function settled(id, announceIt) {
    const article = articleOf(id);
    if (article !== null && announceIt && !article.hasAttribute("data-deciding"))
      say("Decided elsewhere: " + titleOf(article) + ". It left the pending list.");
    removeItem(id);
    void addDecided(id);
  }

  /** The buttons are usable again after a refusal: the focus goes back to the one pressed if it was dropped. */
  function enableAgain(article, buttons, submitter) {
    for (const button of buttons) button.disabled = article.classList.contains("expired");
    if (holdsFocus(article) && !submitter.disabled) submitter.focus();
  }

  async function decide(form, decision, submitter) {
    const article = form.closest("article.approval");
    if (article === null) return;
    const id = article.getAttribute("data-approval-id");
    const title = titleOf(article);
    const digest = form.querySelector('input[name="approval_digest"]').value;
    const reasonField = form.querySelector('input[name="reason"]');
    const reason = reasonField === null ? "" : reasonField.value;
    const buttons = form.querySelectorAll("button");
    // Disabling the pressed button drops the focus to <body>: remember that it was here.
    if (article.contains(document.activeElement)) article.setAttribute("data-focus-within", "");
    for (const button of buttons) button.disabled = true;
    article.setAttribute("data-deciding", "");
    try {
      const res = await fetch("/console/approvals/" + id, {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        // An empty reason is none: the gate takes 1 to 500 characters.
        body: JSON.stringify(
          reason === ""
            ? { decision: decision, approval_digest: digest }
            : { decision: decision, approval_digest: digest, reason: reason },
        ),
      });
      const answer = await res.json();
      if (res.status === 200) {
        const until =
          answer.valid_until === null ? "" : "; the agent may repeat the call until " + iso(answer.valid_until);
        say((answer.state === "approved" ? "Approved " : "Denied ") + title + until + ".");
        settled(id, false);
        return;
      }
      say("Not decided: " + title + ". " + answer.title + " (" + answer.code + "): " + answer.detail, true);
      if (answer.code === "UNAUTHENTICATED") sessionEnded();
      else if (ENDS_ITEM.includes(answer.code)) settled(id, false);
      else enableAgain(article, buttons, submitter);
    } catch {
      say("Not decided: " + title + ". The gate could not be reached; nothing was sent.", true);
      enableAgain(article, buttons, submitter);
    } finally {
      article.removeAttribute("data-deciding");
      article.removeAttribute("data-focus-within");
    }
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    const submitter = event.submitter;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("decision") || submitter == null) return;
    if (submitter.value !== "approve" && submitter.value !== "deny") return;
    event.preventDefault();
    void decide(form, submitter.value, submitter);
  });

  /** The stream was refused: an ended session (401 on any read) stops, anything else (a full gate) retries later. */
  async function refused() {
    const probe = await fetch("/console/approvals/apr_" + "0".repeat(32), {
      credentials: "same-origin",
      headers: { "x-console-live": "1" },
    }).catch(() => null);
    if (probe !== null && probe.status === 401) return sessionEnded();
    setLive("Live updates paused; retrying in a few seconds.", false);
    setTimeout(connect, 5000);
  }

  let source = null;
  function connect() {
    if (ended || typeof EventSource !== "function") return;
    source = new EventSource("/console/events");
    source.addEventListener("open", () => setLive("Live: new approvals appear here as they arrive.", false));
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) void refused();
      else if (!ended) setLive("Reconnecting to live updates…", false);
    });
    source.addEventListener("console.pending", (event) => {
      const pending = new Set(String(event.data).match(/apr_[0-9a-f]{32}/g) || []);
      for (const article of document.querySelectorAll("article.approval")) {
        const id = article.getAttribute("data-approval-id");
        if (!pending.has(id) && !article.classList.contains("expired")) settled(id, true);
      }
      for (const id of pending) void addPending(id);
    });
    source.addEventListener("approval.requested", (event) => {
      if (APPROVAL_ID.test(event.lastEventId)) void addPending(event.lastEventId);
    });
    source.addEventListener("approval.decided", (event) => {
      if (APPROVAL_ID.test(event.lastEventId)) settled(event.lastEventId, true);
    });
  }
  connect();

  // A page just loaded moved too (a double click on a link or Sign in lands its second click here).
  arm();
  tick();
  setInterval(tick, 1000);
})();
