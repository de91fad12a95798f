import Foundation
import Testing

/// Many portal-auth processes replacing one stored credential while others read it: no process
/// fails and exactly one item is left, in the keyring and in the file store.
@Suite struct StoreContentionTests {
    /// Stores a first token, then starts `writers` logins (two user names, alternately) and as
    /// many `token` reads at once, waits for every one of them, and prints the failures, the
    /// number of items, and the first error text.
    static func script(writers: Int, countItems: String) -> String {
        """
        U=https://contention.example.test/arcgis
        out="$XDG_RUNTIME_DIR/out"; mkdir -p "$out"
        printf %s first | "$PA" login --url "$U" --token-stdin --unchecked >/dev/null || { echo "setup failed"; exit 1; }
        i=0
        while [ $i -lt \(writers) ]; do
          i=$((i + 1))
          ( printf %s "token-$i" | "$PA" login --url "$U" --token-stdin --unchecked --username "user$((i % 2))" \
              >/dev/null 2>"$out/w$i" || echo "login $i: $?" >>"$out/failed" ) &
          ( t=$("$PA" token "$U" 2>"$out/r$i") && case "$t" in first|token-*) ;; *) false ;; esac \
              || echo "token $i: $? [$t]" >>"$out/failed" ) &
        done
        wait
        echo "failures=$(cat "$out/failed" 2>/dev/null | wc -l)"
        echo "items=$(\(countItems))"
        cat "$out/failed" 2>/dev/null | head -3
        cat "$out"/w* "$out"/r* | head -3
        """
    }

    static func figures(_ output: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { result[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return result
    }

    @Test func parallelLoginsAndReadsInTheKeyringLeaveOneItemAndNoFailure() async throws {
        let count = "secret-tool search --all application portal-auth server \"$U\" 2>&1 | grep -c '^\\['"
        let r = try await CLI.inPrivateKeyring(Self.script(writers: 30, countItems: count))
        let figures = Self.figures(r.stdout)
        #expect(figures["failures"] == "0", "\(r.stdout)\(r.stderr)")
        #expect(figures["items"] == "1", "\(r.stdout)\(r.stderr)")
        #expect(!r.stderr.contains("CRITICAL"), "\(r.stderr)")
    }

    @Test func parallelLoginsAndReadsInTheFileStoreLeaveOneItemAndNoFailure() async throws {
        let count = "grep -o '\"server\":\"[^\"]*\"' \"$PORTAL_AUTH_FILE_STORE\" | grep -c contention"
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pa-contention-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let env = ["PORTAL_AUTH_STORE": "file", "PORTAL_AUTH_FILE_STORE": dir.path + "/store/credentials.json"]
        let r = try await CLI.inPrivateKeyring(Self.script(writers: 30, countItems: count), environment: env)
        let figures = Self.figures(r.stdout)
        #expect(figures["failures"] == "0", "\(r.stdout)\(r.stderr)")
        #expect(figures["items"] == "1", "\(r.stdout)\(r.stderr)")
    }
}
