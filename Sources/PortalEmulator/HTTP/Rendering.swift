/// Turns a JSON resource into the answer the caller asked for with `f`.
enum Rendering {
    /// The page title real portals and servers give their HTML directory pages.
    static let directoryTitle = "ArcGIS Portal Directory"

    /// JSON for `f=json`/`f=pjson`, the directory page for `f=html` or no `f`.
    static func resource(_ value: JSONValue, for request: IncomingRequest) -> OutgoingResponse {
        switch request.format {
        case .json: return .json(value)
        case .prettyJSON: return .json(value, pretty: true)
        case .html: return .html(page(heading: request.path, json: value))
        case .unsupported(let format):
            return .json(
                ArcGISError(code: 400, message: "Invalid format.", details: ["Format '\(format)' is not supported."])
                    .json)
        }
    }

    /// An ArcGIS error in the requested format (HTTP 200 either way).
    static func error(_ error: ArcGISError, for request: IncomingRequest) -> OutgoingResponse {
        resource(error.json, for: request)
    }

    /// A minimal "ArcGIS Portal Directory" page showing the resource.
    static func page(heading: String, json: JSONValue) -> String {
        htmlPage(
            title: directoryTitle,
            body: """
                <table width="100%" class="userTable"><tr><td class="titlecell">\(directoryTitle)</td></tr></table>
                <h2>\(escapeHTML(heading))</h2>
                <pre>\(escapeHTML(json.serialized(pretty: true)))</pre>
                """)
    }

    /// A small HTML page (sign-in, approval and sign-out pages); `title` is escaped, `body` is HTML.
    static func htmlPage(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>\(escapeHTML(title))</title></head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// A sign-in form posting to `action`: the `carried` request parameters as hidden fields,
    /// username, password, and approve/deny buttons (what scripts/scripted-browser.py fills in).
    static func signInForm(
        _ request: IncomingRequest, action: String, carried: [String], usernameLabel: String, message: String?
    ) -> String {
        let hidden = carried.compactMap { name -> String? in
            guard let value = request.parameter(name) else { return nil }
            return "<input type=\"hidden\" name=\"\(name)\" value=\"\(escapeHTML(value))\">"
        }.joined(separator: "\n")
        let error = message.map { "<p class=\"error\" role=\"alert\">\(escapeHTML($0))</p>" } ?? ""
        return """
            \(error)
            <form method="post" action="\(escapeHTML(action))">
            \(hidden)
            <label>\(usernameLabel) <input type="text" name="username" autocomplete="username"></label>
            <label>Password <input type="password" name="password" autocomplete="current-password"></label>
            <button type="submit" name="action" value="approve">Sign in</button>
            <button type="submit" name="action" value="deny">Cancel</button>
            </form>
            """
    }

    /// Escapes `&`, `<`, `>` and `"` for HTML text.
    static func escapeHTML(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
