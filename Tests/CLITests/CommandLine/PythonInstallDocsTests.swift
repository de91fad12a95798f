import Foundation
import TestSupport
import Testing

/// docs/python.md's install block, run as printed from the checkout with a home folder of its own:
/// a virtual environment, since Debian's Python refuses `pip install` outside one (issue #38,
/// item 4). It installs `requests` and setuptools from the package index.
@Suite struct PythonInstallDocsTests {
    @Test func theInstallBlockRunsAsPrinted() async throws {
        let text = try String(contentsOfFile: RealClients.repositoryRoot + "/docs/python.md", encoding: .utf8)
        let start = try #require(text.range(of: "```sh\n"))
        let end = try #require(text.range(of: "\n```\n", range: start.upperBound..<text.endIndex))
        let block = String(text[start.upperBound..<end.lowerBound])
        #expect(block.contains("python3 -m venv") && !block.contains("\npip install"), "\(block)")
        try await withTemporaryDirectory("pa-python-install") { home in
            let result = try await CLI.run(
                "/bin/bash", ["-c", "set -euo pipefail; cd \"$0\"\n" + block, RealClients.repositoryRoot],
                environment: ["HOME": home], removing: ["VIRTUAL_ENV", "PYTHONPATH"], timeout: 300)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasSuffix("portal_auth is installed\n"), "\(result.stdout)")
        }
    }
}
