import API
import AsyncHTTPClient
import Client
import FoundationEssentials
import NIOHTTP1
import SharedTypes

#if canImport(Glibc)
    import Glibc
#endif

/// What many apps do at once, on C keep-alive connections: signals, forced native loads with
/// an impression and a click, forced rewarded loads shown and dismissed, and now and then a
/// privacy change. Answers other than 2xx are counted, not thrown: under soak some are expected.
struct MixedLoad {
    let socketPath: String
    let connections: Int

    /// Drives the load for `duration`; returns (requests, non-2xx answers).
    @discardableResult
    func run(for duration: Duration) async throws -> (requests: Int, failures: Int) {
        let clock = ContinuousClock()
        let end = clock.now + duration
        return try await drive { _, _ in clock.now < end }
    }

    /// Drives `rounds` rounds in all (each loads two ads and uses them: a store fills by
    /// `rounds * 2` ads); returns (requests, non-2xx answers).
    @discardableResult
    func run(rounds: Int) async throws -> (requests: Int, failures: Int) {
        let (rounds, connections) = (rounds, connections)
        return try await drive { worker, round in round * connections + worker < rounds }
    }

    /// Each worker runs rounds 0, 1, 2... while `going(worker, round)`.
    private func drive(while going: @escaping @Sendable (_ worker: Int, _ round: Int) -> Bool) async throws
        -> (requests: Int, failures: Int)
    {
        try await Load.using(socketPath: socketPath, connections: connections) { load in
            let client = load.client
            return try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for worker in 0..<connections {
                    group.addTask {
                        var counts = (0, 0)
                        var round = 0
                        while going(worker, round) {
                            round += 1
                            for (method, path, body) in try await Self.round(client, worker: worker, round: round) {
                                let reply = try await client.request(method, path, json: body.map { Data($0.utf8) })
                                counts.0 += 1
                                if !(200..<300).contains(reply.status) { counts.1 += 1 }
                            }
                        }
                        return counts
                    }
                }
                var total = (requests: 0, failures: 0)
                for try await counts in group {
                    total.requests += counts.0
                    total.failures += counts.1
                }
                return total
            }
        }
    }

    /// One round of a worker: the requests after the loads it makes itself.
    private static func round(_ client: DaemonClient, worker: Int, round: Int) async throws
        -> [(HTTPMethod, String, String?)]
    {
        var requests: [(HTTPMethod, String, String?)] = [
            (.POST, Endpoints.signals.path(), #"{"request_id":"soak-\#(round)"}"#)
        ]
        let native = try await client.request(
            .POST, Endpoints.loadAd.path(),
            json: Data(#"{"ad_unit":"\#(AdsBenchmark.nativeUnit)","format":"native","force":true}"#.utf8))
        if let id = adID(native.body) {
            requests += [(.POST, Endpoints.impression.path(id), nil), (.POST, Endpoints.click.path(id), nil)]
        }
        let rewarded = try await client.request(
            .POST, Endpoints.loadAd.path(),
            json: Data(#"{"ad_unit":"\#(AdsBenchmark.rewardedUnit)","format":"rewarded","force":true}"#.utf8))
        if let id = adID(rewarded.body) {
            requests += [(.POST, Endpoints.show.path(id), nil), (.POST, Endpoints.dismiss.path(id), nil)]
        }
        if round % 20 == worker % 20 {
            requests.append(
                (.PUT, Endpoints.setPrivacy.path(), #"{"privacy":{"limit_ad_tracking":\#(round % 40 == 0)}}"#))
        }
        return requests
    }

    private static func adID(_ body: Data) -> String? {
        (try? WireFormat.decoder().decode(MediatedAd.self, from: body))?.adID
    }
}
