#if canImport(Glibc)
import Glibc
#endif

/// The width human-readable output keeps within (`status`): `COLUMNS` when set, else the width of
/// the terminal on stdout, else 120 (stdout is not a terminal: a file, a pipe, a test). `--json`
/// carries long fields in full; here they are wrapped or shortened.
enum TerminalWidth {
    /// The default when neither `COLUMNS` nor the terminal says.
    static let fallback = 120
    /// Never narrower than this, whatever `COLUMNS` says.
    static let minimum = 40

    /// The width to keep within now.
    static func current() -> Int {
        if let text = getenv("COLUMNS").map({ String(cString: $0) }), let columns = Int(text), columns > 0 {
            return max(minimum, columns)
        }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return max(minimum, Int(size.ws_col)) }
        return fallback
    }

    /// `text` cut to `width` characters, its middle replaced by `…` (a URL keeps its scheme and
    /// host, and its end).
    static func shorten(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(width)) }
        let head = width / 2
        return String(text.prefix(head)) + "…" + String(text.suffix(width - 1 - head))
    }

    /// `text` as lines of at most `width` characters, broken at spaces (a word longer than a line
    /// is broken where the line ends); lines after the first are indented by two spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var filled = false  // `line` holds a word, not just its indent
        for piece in text.split(separator: " ") {
            var word = piece
            if filled, line.count + 1 + word.count > width {
                lines.append(line)
                (line, filled) = ("  ", false)
            }
            if filled { line += " " }
            while line.count + word.count > width {
                let room = max(1, width - line.count)
                line += word.prefix(room)
                word = word.dropFirst(room)
                lines.append(line)
                line = "  "
            }
            line += word
            filled = true
        }
        if filled || lines.isEmpty { lines.append(line) }
        return lines
    }
}
