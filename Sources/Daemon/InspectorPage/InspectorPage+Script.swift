extension InspectorPage {
    /// The page's behaviour: it reads `/inspect/overview` (again every 5 s), follows
    /// `/inspect/stream` and, each time it opens, reads the last loads and signals requests; a load chosen (or the newest, until
    /// one is) is drawn as an SVG timeline: the time each bidder and source was given, the span
    /// it took, the auction's deadline and the load's end, the winner outlined. Text goes in as
    /// text nodes only.
    static let script = #"""
        "use strict";
        const base = "/inspect";
        const svgNS = "http://www.w3.org/2000/svg";
        const keep = 200;
        let chosen = null;

        function el(tag, attributes, ...children) {
          const node = document.createElement(tag);
          for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
          for (const child of children) node.append(child instanceof Node ? child : String(child ?? ""));
          return node;
        }
        function svg(tag, attributes, text) {
          const node = document.createElementNS(svgNS, tag);
          for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
          if (text !== undefined) node.textContent = text;
          return node;
        }
        async function read(path) {
          const answer = await fetch(base + path, { cache: "no-store" });
          if (!answer.ok) throw new Error(path + " answered " + answer.status);
          return answer.json();
        }
        function ms(value) {
          if (value === undefined || value === null) return "";
          return (value < 10 ? value.toFixed(2) : value.toFixed(0)) + " ms";
        }
        function clip(text, length) { return text.length > length ? text.slice(0, length - 1) + "…" : text; }
        function time(epochMs) { return new Date(epochMs).toLocaleTimeString(); }
        function cell(text, kind) { return el("td", kind ? { class: kind } : {}, text ?? ""); }

        function showOverview(overview) {
          document.getElementById("version").textContent = "daemon " + overview.version +
            ", keeping " + overview.max_traces + " traces";
          document.querySelector("#units tbody").replaceChildren(...overview.ad_units.map(unit =>
            el("tr", {}, cell(unit.id), cell(unit.format),
              cell(unit.frequency_caps.map(cap => cap.impressions + " per " + ms(cap.per_ms)).join(", ")),
              cell(ms(unit.pacing_ms)))));
          const part = status => [cell(status.name), cell(status.state, status.state),
            cell(status.adapter_version), cell(status.sdk_version)];
          document.querySelector("#adapters tbody").replaceChildren(...overview.adapters.map(status =>
            el("tr", {}, ...part(status), cell(status.circuit.state, status.circuit.state))));
          document.querySelector("#networks tbody").replaceChildren(...overview.networks.map(status =>
            el("tr", {}, ...part(status))));
        }

        function loadRow(load) {
          const row = el("tr", { "data-id": String(load.id) }, cell(load.id), cell(time(load.started_at_ms)),
            cell(load.app ?? "-"), cell(load.ad_unit), cell(load.outcome + (load.test ? " (test)" : ""), load.outcome),
            cell(load.network), cell(ms(load.duration_ms)));
          row.addEventListener("click", () => choose(load.id));
          return row;
        }
        function signalsRow(trace) {
          const failed = trace.adapters.filter(a => a.outcome !== "signal" && a.outcome !== "cached").length;
          const summary = trace.adapters.length + " asked" + (failed ? ", " + failed + " failed" : "");
          return el("tr", { "data-id": String(trace.id) }, cell(trace.id), cell(time(trace.started_at_ms)),
            cell(trace.app ?? "-"), cell(trace.request_id), cell(summary, failed ? "failed" : "collected"),
            cell(ms(trace.duration_ms)));
        }
        // Newest first, each trace once: the lists are read each time the stream opens, so a
        // trace may come by both.
        function insert(tbody, id, makeRow) {
          if (tbody.querySelector('tr[data-id="' + id + '"]')) return false;
          const older = Array.from(tbody.rows).find(row => Number(row.dataset.id) < id);
          tbody.insertBefore(makeRow(), older ?? null);
          while (tbody.rows.length > keep) tbody.deleteRow(-1);
          return true;
        }
        function addLoad(load) {
          const tbody = document.querySelector("#loads tbody");
          if (!insert(tbody, load.id, () => loadRow(load))) return;
          const newest = tbody.rows[0].dataset.id === String(load.id);
          if ((chosen === null || chosen === "newest") && newest) draw(load, "newest");
        }
        function addSignals(trace) {
          insert(document.querySelector("#signals tbody"), trace.id, () => signalsRow(trace));
        }

        // A click reads the trace anew (its notices may have gone since); an answer to an older
        // click is not drawn over a newer one's.
        let clicks = 0;
        async function choose(id) {
          const click = ++clicks;
          try {
            const load = await read("/loads/" + id);
            if (click === clicks) draw(load, id);
          } catch (error) {
            if (click === clicks) document.getElementById("load-summary").textContent = "load " + id + ": " + error.message;
          }
        }
        function noticesOf(load, bidder) {
          return (load.notices ?? []).filter(n => n.network === bidder.network && n.parameter === bidder.parameter)
            .map(n => n.kind + " " + n.outcome + (n.status !== undefined ? " " + n.status : "")).join(", ");
        }

        // One row per bidder and per source: the time it was given (light), the span it took
        // (its outcome's colour), and its latency and outcome beside the bar.
        function draw(load, mark) {
          chosen = mark;
          for (const row of document.querySelectorAll("#loads tbody tr")) {
            row.classList.toggle("selected", row.dataset.id === String(load.id));
          }
          const rows = load.bidders.map(b => ({
            kind: "bidder", label: "bidder " + b.network + " " + b.parameter, start: b.start_ms,
            latency: b.latency_ms, given: b.time_ms, outcome: b.outcome,
            note: b.price !== undefined ? b.price + " " + (b.currency ?? "") : "", winner: b.outcome === "won",
          })).concat(load.sources.map(s => ({
            kind: s.kind, label: s.kind.replace("_", " ") + " " + s.network + " " + s.parameter, start: s.start_ms,
            latency: s.latency_ms, given: s.timeout_ms, outcome: s.outcome, note: s.message ?? "",
            winner: s.outcome === "filled",
          })));
          const deadlines = load.bidders.filter(b => b.time_ms !== undefined).map(b => b.start_ms + b.time_ms);
          const deadline = deadlines.length ? Math.max(...deadlines) : null;
          // The scale is what the load took; time given beyond it runs off the right edge.
          const span = Math.max(load.duration_ms, ...rows.map(r => r.start + r.latency), 1) * 1.1;
          const left = 330, width = 640, rowHeight = 22, top = 24;
          const x = t => left + (Math.min(t, span) / span) * width;
          const height = top + rows.length * rowHeight + 10;
          const chart = svg("svg", { width: left + width + 330, height, role: "img",
            "aria-label": "timeline of load " + load.id, "data-load": load.id });
          for (let i = 0; i <= 4; i++) {
            const t = span * i / 4;
            chart.append(svg("line", { class: "axis", x1: x(t), x2: x(t), y1: top - 6, y2: height }));
            chart.append(svg("text", { x: x(t) + 2, y: top - 10 }, ms(t)));
          }
          rows.forEach((row, i) => {
            const y = top + i * rowHeight;
            chart.append(svg("text", { x: 4, y: y + 15 }, clip(row.label, 44)));
            if (row.given !== undefined && row.given !== null) {
              chart.append(svg("rect", { class: "given", x: x(row.start), y: y + 3,
                width: Math.max(x(row.start + row.given) - x(row.start), 1), height: rowHeight - 6 }));
            }
            const bar = svg("rect", { class: "attempt " + row.outcome + (row.winner ? " winner" : ""),
              "data-kind": row.kind, x: x(row.start), y: y + 5,
              width: Math.max(x(row.start + row.latency) - x(row.start), 2), height: rowHeight - 10 });
            bar.append(svg("title", {}, row.label + ": " + row.outcome + " in " + ms(row.latency)));
            chart.append(bar);
            chart.append(svg("text", { x: left + width + 6, y: y + 15 },
              clip(ms(row.latency) + " " + row.outcome + (row.note ? " · " + row.note : ""), 48)));
          });
          if (deadline !== null && deadline <= span) {
            chart.append(svg("line", { class: "deadline", x1: x(deadline), x2: x(deadline), y1: top - 6, y2: height }));
          }
          chart.append(svg("text", { x: 4, y: top - 10 }, deadline === null ? "" :
            "auction deadline " + ms(deadline) + (deadline > span ? " (beyond the chart)" : "")));
          chart.append(svg("line", { class: "end", x1: x(load.duration_ms), x2: x(load.duration_ms),
            y1: top - 6, y2: height }));
          document.getElementById("timeline").replaceChildren(chart);
          document.getElementById("load-title").textContent = "Load " + load.id + ": " + load.ad_unit +
            (load.app ? " for " + load.app : "") + (load.retry ? " (retry " + load.retry + ")" : "") +
            (load.test ? " (test)" : "");
          const privacy = load.privacy;
          document.getElementById("load-summary").textContent = load.outcome +
            (load.network ? " by " + load.network : "") + (load.message ? ": " + load.message : "") +
            " in " + ms(load.duration_ms) + "; serving " + privacy.serving_mode +
            (privacy.limit_ad_tracking ? ", limit ad tracking" : "") + (privacy.tcf ? ", TCF" : "") +
            (privacy.gpp_sections.length ? ", GPP " + privacy.gpp_sections.join(" ") : "");
          document.querySelector("#bids tbody").replaceChildren(...load.bidders.map(b => el("tr", {},
            cell(b.network + " " + b.parameter), cell(b.outcome, b.outcome),
            cell(b.price !== undefined ? b.price + " " + (b.currency ?? "") : ""), cell(b.bid?.seat),
            cell(b.bid?.bid_id), cell(b.bid?.creative_id), cell((b.bid?.advertiser_domains ?? []).join(" ")),
            cell(b.loss_reason), cell(noticesOf(load, b)), cell(b.message, "message"))));
        }

        function follow() {
          const live = document.getElementById("live");
          const stream = new EventSource(base + "/stream");
          // Read the lists on every open: what was recorded while the stream was down shows too.
          stream.onopen = () => {
            live.textContent = "live";
            live.className = "on";
            readLists().catch(error => console.error(error));
          };
          stream.onerror = () => { live.textContent = "reconnecting"; live.className = "off"; };
          stream.addEventListener("load", event => addLoad(JSON.parse(event.data)));
          stream.addEventListener("signals", event => addSignals(JSON.parse(event.data)));
        }

        async function readLists() {
          const [recentLoads, recentSignals] = await Promise.all([read("/loads?limit=50"), read("/signals?limit=50")]);
          for (const load of recentLoads.loads) addLoad(load);
          for (const trace of recentSignals.signals) addSignals(trace);
        }

        async function start() {
          const refresh = () => read("/overview").then(showOverview).catch(error => console.error(error));
          await refresh();
          setInterval(refresh, 5000);
          follow();
        }
        start();

        """#
}
