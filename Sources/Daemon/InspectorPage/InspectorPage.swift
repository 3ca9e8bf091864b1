import Hummingbird
import NIOCore

/// The inspector page's assets, served by `InspectorPageRoutes` from the binary (no file,
/// no external asset): the page, its icon, its style, and its script (`InspectorPage+Script.swift`).
/// The script writes what it shows as text, never as markup: a bid's advertiser domain or a
/// network's message is a remote server's text.
enum InspectorPage {
    /// Nothing but the daemon's own assets and answers; no frame, no form, no inline script.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self';"
        + " base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func response(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "\(type); charset=utf-8", .contentSecurityPolicy: contentSecurityPolicy,
                .cacheControl: "no-store",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>secure-signals inspector</title>
        <link rel="stylesheet" href="/inspect/inspector.css">
        <link rel="icon" href="/inspect/icon.svg">
        </head>
        <body>
        <header>
          <h1>secure-signals inspector</h1>
          <span id="version"></span>
          <span id="live" class="off">connecting</span>
        </header>
        <main>
          <section id="daemon">
            <h2>Ad units</h2>
            <table id="units"><thead><tr><th>unit</th><th>format</th><th>frequency caps</th><th>pacing</th></tr></thead>
              <tbody></tbody></table>
            <h2>Signal adapters</h2>
            <table id="adapters"><thead><tr><th>adapter</th><th>state</th><th>adapter</th><th>SDK</th>
              <th>circuit</th></tr></thead><tbody></tbody></table>
            <h2>Ad networks</h2>
            <table id="networks"><thead><tr><th>network</th><th>state</th><th>adapter</th><th>SDK</th></tr></thead>
              <tbody></tbody></table>
          </section>
          <section id="recent">
            <h2>Recent loads</h2>
            <table id="loads"><thead><tr><th>#</th><th>time</th><th>app</th><th>unit</th><th>outcome</th>
              <th>network</th><th>took</th></tr></thead><tbody></tbody></table>
            <h2>Recent signals requests</h2>
            <table id="signals"><thead><tr><th>#</th><th>time</th><th>app</th><th>request</th><th>adapters</th>
              <th>took</th></tr></thead><tbody></tbody></table>
          </section>
          <section id="load">
            <h2 id="load-title">Choose a load to draw its timeline</h2>
            <div id="timeline"></div>
            <p id="load-summary"></p>
            <table id="bids"><thead><tr><th>bidder</th><th>outcome</th><th>price</th><th>seat</th><th>bid</th>
              <th>creative</th><th>advertiser</th><th>loss reason</th><th>notices</th><th>message</th></tr></thead>
              <tbody></tbody></table>
          </section>
        </main>
        <script src="/inspect/inspector.js"></script>
        </body>
        </html>

        """

    /// Three bars, as the timeline draws a load.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d2330"/>
        <rect x="2" y="3" width="7" height="2" fill="#8a94a6"/><rect x="5" y="7" width="9" height="2" fill="#2a7a3b"/>
        <rect x="3" y="11" width="5" height="2" fill="#a33"/></svg>

        """

    static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
        header { display: flex; gap: 1em; align-items: baseline; padding: .6em 1.2em; background: #1d2330; color: #fff; }
        header h1 { font-size: 1.1em; margin: 0; }
        #live { margin-left: auto; padding: 0 .6em; border-radius: 1em; background: #a33; }
        #live.on { background: #2a7a3b; }
        main { display: grid; grid-template-columns: minmax(18em, 1fr) minmax(24em, 2fr); gap: 1em; padding: 1em; }
        #load { grid-column: 1 / -1; }
        section { overflow-x: auto; background: #fff; border-radius: 6px; padding: .6em 1em; box-shadow: 0 1px 2px #0002; }
        h2 { font-size: 1em; margin: .8em 0 .3em; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .15em .5em; border-bottom: 1px solid #e3e6ea; white-space: nowrap; }
        td.message { white-space: normal; }
        #loads tbody tr { cursor: pointer; }
        #loads tbody tr:hover { background: #eef3ff; }
        #loads tbody tr.selected { background: #dde8ff; }
        .filled, .won, .ready, .closed, .cache_hit, .collected { color: #2a7a3b; }
        .error, .timeout, .failed, .open, .lost { color: #a33; }
        svg text { font: 12px system-ui, sans-serif; fill: #1d2330; }
        svg .axis { stroke: #c8ccd2; }
        svg .deadline { stroke: #a33; stroke-dasharray: 4 3; }
        svg .end { stroke: #1d2330; stroke-dasharray: 2 2; }
        svg .given { fill: #e3e6ea; }
        svg rect.attempt { fill: #8a94a6; }
        svg rect.attempt.filled, svg rect.attempt.won { fill: #2a7a3b; }
        svg rect.attempt.lost { fill: #c9a227; }
        svg rect.attempt.error, svg rect.attempt.timeout { fill: #a33; }
        svg rect.attempt.winner { stroke: #1d2330; stroke-width: 2; }

        """
}
