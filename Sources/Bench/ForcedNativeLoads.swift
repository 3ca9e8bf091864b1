import API
import FoundationEssentials
import SharedTypes

/// `bench openrtb`'s harness: the socket's floor (`GET /v1/health`) and a forced native load of
/// each unit, images not loaded, in alternating slices over the same connections.
@MemberwiseInit
public struct ForcedNativeLoads {
    public var socketPath: String
    public var seconds: Double = 9
    public var connections: Int = 1
    /// After the floor's, a row for each: its name and the unit it loads.
    public var units: [(name: String, unit: String)]

    public func run() async throws -> [AdsBenchmark.Row] {
        try await Load.using(socketPath: socketPath, connections: connections) { load in
            try await AdsBenchmark.alternate(
                load, seconds: seconds,
                subjects: [("health (floor)", Endpoints.health.path(), nil)]
                    + units.map { name, unit in
                        (
                            name, Endpoints.loadAd.path(),
                            Data(
                                #"{"ad_unit":"\#(unit)","format":"native","force":true,"options":{"disable_image_loading":true}}"#
                                    .utf8)
                        )
                    })
        }
    }
}
