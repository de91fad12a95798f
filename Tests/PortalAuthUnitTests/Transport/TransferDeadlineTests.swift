import Foundation
import Testing

@testable import PortalAuth

/// How long a transfer may run: the overall deadline, except for one that streams a body, which
/// runs while its data flows and is bounded by the low-speed limit instead.
@Suite struct TransferDeadlineTests {
    @Test func aStreamedAnswerHasNoOverallDeadlineWhileALowSpeedLimitBoundsIt() {
        let configuration = TransportConfiguration()
        var request = TransportRequest(url: URL(string: "https://host.example/arcgis/rest/services")!, timeout: 30)
        #expect(TransferLimits(request, configuration).deadline == 30)
        request.responseStream = ResponseBodyStream()
        #expect(TransferLimits(request, configuration).deadline == 0)
        var withoutLowSpeedLimit = configuration
        withoutLowSpeedLimit.lowSpeedLimit = 0
        #expect(TransferLimits(request, withoutLowSpeedLimit).deadline == 30)
    }
}
