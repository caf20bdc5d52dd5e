// The nucleo console: the catalog, the pending approvals and the live audit, over the HTTP API.
//
// No framework and no build step. Everything shown is set as text (never as HTML), so nothing a
// tool, a model or an argument says can become markup. The token is kept in sessionStorage (this
// tab only) and sent in the Authorization header, never in a URL: the audit stream is read with
// fetch, because EventSource cannot send a header.

const TOKEN_KEY = "nucleo.console.token";
// The audit view keeps this many rows; older ones stay in the record (`nucleo audit`).
const AUDIT_ROWS = 500;
// How often the approvals are read again, in milliseconds: a decision made elsewhere (`nucleo
// approvals`) writes no audit record for the live view to notice.
const APPROVALS_EVERY = 10000;
// Record kinds after which the pending approvals may have changed.
const APPROVAL_KINDS = new Set(["approval_request", "approval_decision"]);
const KIND_LABELS = {
  grant: "tool granted",
  refusal: "tool refused",
  permission: "permission decided",
  approval_request: "approval asked",
  approval_decision: "approval decided",
  call_start: "call started",
  call_finish: "call finished",
  notification: "notification",
  failure: "failure",
  revocation: "tool revoked",
};

const state = {
  token: sessionStorage.getItem(TOKEN_KEY),
  stream: null, // the AbortController of the running audit stream
  lastSequence: 0,
  catalogRequest: 0,
  catalogTotal: null,
  approvalsTimer: null,
  approvalsPoll: null,
  approvalsRequest: 0,
};

const $ = (id) => document.getElementById(id);

class Unauthorized extends Error {}

class ApiProblem extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// ---- talking to the API -------------------------------------------------------------------

function authorization() {
  return { Authorization: `Bearer ${state.token}` };
}

const UNREACHABLE =
  "The server cannot be reached. Is `nucleo serve` still running? Reload the page once it is.";

async function api(method, path, body) {
  const sent = state.token;
  const headers = { ...authorization(), Accept: "application/json" };
  const init = { method, headers, cache: "no-store", credentials: "omit" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiProblem(0, UNREACHABLE);
  }
  if (response.status === 401) {
    // Only once per token: the other requests that bore it answer 401 too, maybe while a new
    // token is being typed.
    if (state.token === sent) askForToken("The server did not accept the token. Enter it again.");
    throw new Unauthorized();
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    throw new ApiProblem(response.status, plainMessage(response.status, data));
  }
  return data;
}

// An error answer in plain words: the server's own message (it says what to do), else the status.
function plainMessage(status, data) {
  if (data && typeof data.message === "string" && data.message) {
    const text = data.message.charAt(0).toUpperCase() + data.message.slice(1);
    return /[.!?]$/.test(text) ? text : `${text}.`;
  }
  const known = {
    403: "The server refused this.",
    404: "That is not there any more.",
    409: "That was decided already, or it expired.",
    413: "That is too large for the server.",
    422: "The server could not take that as it is.",
  };
  return known[status] || `The server failed to answer (HTTP ${status}); its log says why.`;
}

// ---- messages -----------------------------------------------------------------------------

function showProblem(message) {
  $("problem-text").textContent = message;
  $("problem").hidden = false;
}

function clearProblem() {
  $("problem").hidden = true;
  $("problem-text").textContent = "";
}

function showNotice(message) {
  const notice = $("notice");
  notice.textContent = message;
  notice.hidden = false;
}

// Any failure of an action: a 401 has asked for the token already.
function reportFailure(error) {
  if (error instanceof Unauthorized) return;
  showProblem(error instanceof ApiProblem ? error.message : `Something went wrong: ${error}`);
}

// ---- the token ----------------------------------------------------------------------------

function askForToken(reason) {
  stopAudit();
  clearInterval(state.approvalsPoll);
  state.token = null;
  sessionStorage.removeItem(TOKEN_KEY);
  $("console").hidden = true;
  $("forget-token").hidden = true;
  $("notice").hidden = true;
  clearProblem();
  const problem = $("token-problem");
  problem.textContent = reason || "";
  problem.hidden = !reason;
  $("token-panel").hidden = false;
  const input = $("token-input");
  input.value = "";
  input.focus();
}

async function submitToken(event) {
  event.preventDefault();
  const token = $("token-input").value.trim();
  if (!token) {
    $("token-problem").textContent = "Paste the token first: the field is empty.";
    $("token-problem").hidden = false;
    return;
  }
  state.token = token;
  try {
    await api("GET", "/api/approvals"); // the cheapest request that proves the token
  } catch (error) {
    if (error instanceof Unauthorized) {
      $("token-problem").textContent =
        "That is not this server's token. Copy it again from .nucleo/api-token " +
        "(in the folder the server runs in) and try once more.";
      $("token-problem").hidden = false;
      return;
    }
    state.token = null;
    $("token-problem").textContent = error.message;
    $("token-problem").hidden = false;
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  $("token-input").value = "";
  openConsole();
}

function forgetToken() {
  askForToken("The token is forgotten in this tab. Enter it to open the console again.");
}

// ---- the console --------------------------------------------------------------------------

function openConsole() {
  $("token-panel").hidden = true;
  $("console").hidden = false;
  $("forget-token").hidden = false;
  clearProblem();
  loadVersion();
  loadCatalogChoices().then(loadCatalog, reportFailure);
  loadApprovals();
  clearInterval(state.approvalsPoll);
  state.approvalsPoll = setInterval(loadApprovals, APPROVALS_EVERY);
  startAudit();
}

async function loadVersion() {
  try {
    const response = await fetch("/api/health", { cache: "no-store", credentials: "omit" });
    const health = await response.json();
    $("server-version").textContent = `nucleo-core ${health.version}`;
  } catch {
    $("server-version").textContent = "";
  }
}

// ---- the catalog --------------------------------------------------------------------------

function shortName(qualified) {
  const parts = qualified.split(".");
  return parts[parts.length - 1];
}

function addOption(select, value, label) {
  const option = document.createElement("option");
  option.value = value;
  option.textContent = label;
  select.append(option);
}

// The choices of the source and thinker filters, from the unfiltered listing.
async function loadCatalogChoices() {
  const listing = await api("GET", "/api/tools");
  state.catalogTotal = listing.count;
  const servers = new Set();
  const thinkers = new Set();
  for (const tool of listing.tools) {
    if (tool.source_kind === "mcp") servers.add(tool.source.split(":")[1]);
    for (const holder of tool.thinkers) thinkers.add(holder.thinker);
  }
  const source = $("filter-source");
  const thinker = $("filter-thinker");
  // The built-in choices stay; those of a previous opening go.
  while (source.options.length > 3) source.remove(3);
  while (thinker.options.length > 1) thinker.remove(1);
  for (const server of [...servers].sort()) addOption(source, `mcp:${server}`, `MCP server ${server}`);
  for (const name of [...thinkers].sort()) addOption(thinker, name, `${shortName(name)} (${name})`);
}

function catalogFilter() {
  const wanted = {};
  const text = $("filter-text").value.trim();
  if (text) wanted.text = text;
  const source = $("filter-source").value;
  if (source) wanted.source = source;
  const risks = [...document.querySelectorAll("#catalog-filter input[name=risk]:checked")].map(
    (box) => box.value,
  );
  if (risks.length) wanted.risk = risks;
  const readOnly = $("filter-read-only").value;
  if (readOnly) wanted.read_only = readOnly === "true";
  const thinker = $("filter-thinker").value;
  if (thinker) wanted.thinker = thinker;
  return wanted;
}

async function loadCatalog() {
  const wanted = catalogFilter();
  const request = ++state.catalogRequest;
  let listing;
  try {
    listing = await api("POST", "/api/tools/filter", wanted);
  } catch (error) {
    reportFailure(error);
    return;
  }
  if (request !== state.catalogRequest) return; // a later filter's answer is the one to show
  const rows = $("catalog-rows");
  rows.replaceChildren(...listing.tools.map(toolRow));
  const filtered = Object.keys(wanted).length > 0;
  const total = state.catalogTotal;
  $("catalog-summary").textContent =
    filtered && total !== null
      ? `${listing.count} of ${total} tools match`
      : `${listing.count} tool${listing.count === 1 ? "" : "s"}`;
  const empty = $("catalog-empty");
  empty.textContent = filtered
    ? "No tool matches these filters. Clear them to see every tool."
    : "This server serves no tools. Start it with --from MODULE_OR_PATH or --thinker CLASS.";
  empty.hidden = listing.count > 0;
  $("catalog-table").hidden = listing.count === 0;
}

function cell(...children) {
  const td = document.createElement("td");
  td.append(...children);
  return td;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function badge(text, kind) {
  return element("span", text, `badge ${kind}`);
}

function toolRow(tool) {
  const row = document.createElement("tr");
  row.dataset.tool = tool.name;
  const name = element("div", tool.display_name, "tool-name");
  const parts = [name];
  if (tool.display_name !== tool.name) parts.push(element("div", tool.name, "mono muted"));
  parts.push(element("div", tool.description.split("\n")[0], "muted"));
  const risk = badge(tool.risk_declared ? tool.risk : `${tool.risk} (undeclared)`, `risk-${tool.risk}`);
  const decision = badge(tool.decision.decision, `decision-${tool.decision.decision}`);
  decision.title = tool.decision.reason;
  const holders = tool.thinkers.length
    ? tool.thinkers.map((holder) => {
        const where = [holder.palette ? "palette" : null, holder.catalog ? "catalog" : null]
          .filter(Boolean)
          .join(", ");
        const line = element("div", `${shortName(holder.thinker)} (${where})`);
        line.title = holder.thinker;
        return line;
      })
    : [element("span", "no thinker class", "muted")];
  row.append(
    cell(...parts),
    cell(element("div", tool.id, "mono"), element("div", tool.origin, "muted")),
    cell(tool.read_only ? "read-only" : "may change things"),
    cell(risk),
    cell(decision, element("div", tool.decision.decided_by, "muted mono")),
    cell(...holders),
  );
  return row;
}

let catalogTimer = null;

function catalogChanged(event) {
  clearTimeout(catalogTimer);
  // Typing waits for a pause; a choice applies at once.
  catalogTimer = setTimeout(loadCatalog, event && event.type === "input" ? 250 : 0);
}

// ---- the approvals ------------------------------------------------------------------------

function scheduleApprovals() {
  clearTimeout(state.approvalsTimer);
  state.approvalsTimer = setTimeout(loadApprovals, 200);
}

async function loadApprovals() {
  const request = ++state.approvalsRequest;
  let listing;
  try {
    listing = await api("GET", "/api/approvals");
  } catch (error) {
    reportFailure(error);
    return;
  }
  // An answer older than a later read, or than a decision made here, could show a decided
  // approval again.
  if (request !== state.approvalsRequest) return;
  $("approvals-loading").hidden = true;
  const list = $("approvals-list");
  const pending = new Map(listing.approvals.map((approval) => [approval.id, approval]));
  // Keep the items still pending (a reason being typed stays); drop the rest; add the new.
  for (const item of [...list.children]) {
    if (!pending.has(item.dataset.approvalId)) item.remove();
  }
  const shown = new Set([...list.children].map((item) => item.dataset.approvalId));
  for (const approval of listing.approvals) {
    if (!shown.has(approval.id)) list.append(approvalItem(approval));
  }
  showApprovalCount();
}

function showApprovalCount() {
  const count = $("approvals-list").children.length;
  $("approvals-count").textContent = count ? `(${count})` : "";
  $("approvals-empty").hidden = count > 0;
}

function describeArguments(approval) {
  return Object.entries(approval.arguments)
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join(", ");
}

function detail(list, term, value, className) {
  list.append(element("dt", term), element("dd", value, className));
}

function approvalItem(approval) {
  const item = element("li", null, "approval");
  item.dataset.approvalId = approval.id;
  item.setAttribute("aria-label", `${approval.tool}: ${describeArguments(approval)}`);

  const head = element("div", null, "approval-head");
  head.append(
    element("span", approval.tool, "tool-name"),
    badge(approval.risk_declared ? approval.risk : `${approval.risk} (undeclared)`, `risk-${approval.risk}`),
    element("span", approval.kind === "thinker_run" ? "paused run" : "API call", "muted"),
  );

  const details = element("dl", null, "details");
  const args = element("pre", JSON.stringify(approval.arguments, null, 2), "arguments");
  const argumentsValue = document.createElement("dd");
  argumentsValue.append(args);
  details.append(element("dt", "Arguments"), argumentsValue);
  detail(details, "Asked by", `${shortName(approval.thinker)} (${approval.requested_by})`);
  detail(details, "Conversation", approval.conversation_id, "mono");
  detail(details, "Needs approval because", approval.decided_by_rule, "mono");
  detail(details, "Asked at", localTime(approval.requested_at));
  detail(details, "Expires at", localTime(approval.expires_at));
  if (approval.resume_command) {
    detail(details, "Once decided, resume with", approval.resume_command, "mono");
  }

  const actions = element("div", null, "actions");
  const approve = element("button", "Approve", "approve");
  approve.type = "button";
  const reject = element("button", "Reject…", "reject");
  reject.type = "button";
  actions.append(approve, reject);

  const form = element("form", null, "reject-form");
  form.hidden = true;
  form.noValidate = true;
  const reasonId = `reason-${approval.id}`;
  const label = element("label", "Reason for rejecting (the model reads it; no secrets)");
  label.htmlFor = reasonId;
  const reason = document.createElement("textarea");
  reason.id = reasonId;
  reason.rows = 2;
  reason.maxLength = 2000;
  const confirm = element("button", "Reject the call", "reject");
  confirm.type = "submit";
  const cancel = element("button", "Cancel", "quiet");
  cancel.type = "button";
  const formButtons = element("div", null, "actions");
  formButtons.append(confirm, cancel);
  form.append(label, reason, formButtons);

  const problem = element("p", null, "problem");
  problem.setAttribute("role", "alert");
  problem.hidden = true;

  item.append(head, details, actions, form, problem);

  const buttons = [approve, reject, confirm, cancel];
  const decide = async (body) => {
    problem.hidden = true;
    for (const button of buttons) button.disabled = true;
    try {
      const answer = await api("POST", `/api/approvals/${encodeURIComponent(approval.id)}`, body);
      state.approvalsRequest++; // a read sent before this decision is out of date
      showNotice(decidedMessage(approval, answer));
      item.remove();
      showApprovalCount();
    } catch (error) {
      for (const button of buttons) button.disabled = false;
      if (error instanceof Unauthorized) return;
      problem.textContent = error.message;
      problem.hidden = false;
      if (error instanceof ApiProblem && error.status === 409) scheduleApprovals();
    }
  };
  approve.addEventListener("click", () => decide({ decision: "approve" }));
  reject.addEventListener("click", () => {
    form.hidden = false;
    actions.hidden = true;
    reason.focus();
  });
  cancel.addEventListener("click", () => {
    form.hidden = true;
    actions.hidden = false;
    problem.hidden = true;
  });
  reason.addEventListener("input", () => {
    problem.hidden = true; // the reason is being given
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const why = reason.value.trim();
    if (!why) {
      problem.textContent = "Say why you reject it: the model reads the reason.";
      problem.hidden = false;
      reason.focus();
      return;
    }
    decide({ decision: "reject", reason: why });
  });
  return item;
}

function decidedMessage(approval, answer) {
  const what = `${approval.tool}(${describeArguments(approval)})`;
  const decided = answer.approval;
  let said =
    decided.status === "rejected"
      ? `Rejected ${what}: ${decided.reason}.`
      : `Approved ${what}.`;
  if (answer.execution) {
    said += ` The call ended: ${answer.execution.status}.`;
  } else if (approval.resume_command && decided.status !== "rejected") {
    said += ` The paused run goes on when it is resumed: ${approval.resume_command}.`;
  } else if (approval.resume_command) {
    said += ` The run reads the reason when it is resumed: ${approval.resume_command}.`;
  }
  return said;
}

// ---- the audit ----------------------------------------------------------------------------

function localTime(text) {
  const moment = new Date(text);
  return Number.isNaN(moment.getTime()) ? text : moment.toLocaleString();
}

function setLive(status, text) {
  const live = $("audit-live");
  live.dataset.state = status;
  live.textContent = text;
}

function stopAudit() {
  if (state.stream) state.stream.abort();
  state.stream = null;
}

function startAudit() {
  stopAudit();
  state.lastSequence = 0;
  $("audit-rows").replaceChildren();
  $("audit-empty").hidden = false;
  const controller = new AbortController();
  state.stream = controller;
  followAudit(controller.signal);
}

function pause(milliseconds, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

// Read the stream, and read it again from the last record seen when a response ends (each
// lasts the server's --stream-seconds) or the connection drops.
async function followAudit(signal) {
  let wait = 1000;
  while (!signal.aborted) {
    const query = new URLSearchParams({ after: String(state.lastSequence) });
    const since = $("audit-since").value;
    if (since) query.set("since", since);
    let failed = false;
    const sent = state.token;
    try {
      const response = await fetch(`/api/audit/stream?${query}`, {
        headers: { ...authorization(), Accept: "text/event-stream" },
        cache: "no-store",
        credentials: "omit",
        signal,
      });
      if (response.status === 401) {
        if (state.token === sent) askForToken("The server did not accept the token. Enter it again.");
        return;
      }
      if (!response.ok) {
        let data = null;
        try {
          data = await response.json();
        } catch {
          data = null;
        }
        setLive("failed", "not live");
        showProblem(`The live audit view stopped: ${plainMessage(response.status, data)}`);
        failed = true;
      } else {
        setLive("live", "live");
        wait = (await readEvents(response.body, signal)) ?? 1000;
      }
    } catch {
      if (signal.aborted) return;
      failed = true;
      setLive("reconnecting", "reconnecting…");
    }
    if (failed) wait = Math.min(wait * 2, 15000);
    await pause(wait, signal);
  }
}

// The server-sent events of one response, as they arrive; returns the retry time it asked for.
async function readEvents(body, signal) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let retry = null;
  while (!signal.aborted) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n?/g, "\n");
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = { event: "message", data: [] };
      for (const line of block.split("\n")) {
        if (!line || line.startsWith(":")) continue; // a comment: the keep-alive
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") event.data.push(text);
        else if (field === "event") event.event = text;
        else if (field === "retry" && /^\d+$/.test(text)) retry = Number(text);
      }
      if (event.event === "record" && event.data.length) {
        addAuditRecord(JSON.parse(event.data.join("\n")));
      }
      end = buffer.indexOf("\n\n");
    }
  }
  return retry;
}

function who(record) {
  if (record.thinker_id && record.thinker_id.startsWith("api-token:")) return record.thinker_id;
  if (record.thinker_class) {
    const name = shortName(record.thinker_class);
    return record.conversation_id ? `${name} (${record.conversation_id})` : name;
  }
  return record.thinker_id || "";
}

function addAuditRecord(record) {
  if (record.sequence <= state.lastSequence) return; // seen already (a reconnection)
  state.lastSequence = record.sequence;
  const row = document.createElement("tr");
  row.dataset.kind = record.kind;
  row.dataset.sequence = String(record.sequence);
  if (record.call_id) row.dataset.callId = record.call_id;
  const outcome = record.outcome || record.decision || "";
  row.append(
    cell(String(record.sequence)),
    cell(element("span", localTime(record.at), "nowrap")),
    cell(KIND_LABELS[record.kind] || record.kind),
    cell(element("span", record.tool || record.skill || "", "mono")),
    cell(outcome ? badge(outcome, `outcome-${outcome}`) : ""),
    cell(element("span", who(record), "mono")),
    cell(record.reason || ""),
  );
  const rows = $("audit-rows");
  rows.prepend(row);
  while (rows.children.length > AUDIT_ROWS) rows.lastChild.remove();
  $("audit-empty").hidden = true;
  if (APPROVAL_KINDS.has(record.kind)) scheduleApprovals();
}

// ---- start --------------------------------------------------------------------------------

function start() {
  $("token-form").addEventListener("submit", submitToken);
  $("forget-token").addEventListener("click", forgetToken);
  $("problem-dismiss").addEventListener("click", clearProblem);
  $("approvals-refresh").addEventListener("click", loadApprovals);
  const filters = $("catalog-filter");
  filters.addEventListener("input", catalogChanged);
  filters.addEventListener("change", catalogChanged);
  filters.addEventListener("submit", (event) => event.preventDefault());
  filters.addEventListener("reset", () => setTimeout(loadCatalog, 0)); // after the fields reset
  $("audit-since").addEventListener("change", startAudit);
  if (state.token) openConsole();
  else askForToken(null);
}

start();
