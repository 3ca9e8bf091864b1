import Mediation
import SharedTypes

extension OpenRTBAdNetwork {
    /// Its `setup`: what every bid request says of the device, the overrides of what the
    /// registry says of the asking app, and the line items' default `endpoint`. The device's OS,
    /// its version and its language are read at set-up.
    @Settings
    public struct Setup: Decodable, Sendable, Equatable {
        /// The bidder's URL for line items that name none.
        var endpoint: String?
        /// `regs.coppa` until the privacy state says.
        var coppa: Bool?
        var gdpr: Int?
        var app: App?
        var device = Device()

        /// The setup's `app`, for this network: `publisher_id` (its own id of the publisher, such
        /// as a seat) replaces the registry's; the other fields only fill in what the app's
        /// registry entry leaves out, so that a setup never makes one app bid as another. A load
        /// whose app the registry does not describe carries no `app` at all.
        @Settings
        public struct App: Decodable, Sendable, Equatable {
            var id: String?
            var name: String?
            var bundle: String?
            var storeurl: String?
            var ver: String?
            var publisherID: String?

            /// `app` with the setup's publisher id, and its other fields where `app` has none.
            func overriding(_ app: BidRequest.App) -> BidRequest.App {
                var app = app
                app.id = app.id ?? id
                app.name = app.name ?? name
                app.bundle = app.bundle ?? bundle
                app.storeurl = app.storeurl ?? storeurl
                app.ver = app.ver ?? ver
                if let publisherID {
                    app.publisher = app.publisher ?? BidRequest.Publisher()
                    app.publisher?.id = publisherID
                }
                return app
            }
        }

        /// The setup's `device`, as configured; `w` and `h` are the screen's size (`device.w`,
        /// `device.h`) and the rewarded video's.
        @Settings
        public struct Device: Decodable, Sendable, Equatable {
            var ua: String?
            var make: String?
            var model: String?
            var hwv: String?
            /// 3: connected TV; 7: set-top box.
            var devicetype: Int?
            var osReleasePath = "/etc/os-release"
            @Bounds(1...16_384) var w = 1920
            @Bounds(1...16_384) var h = 1080

            var bidRequest: BidRequest.Device {
                BidRequest.Device(ua: ua, make: make, model: model, hwv: hwv, devicetype: devicetype, w: w, h: h)
            }

            public func validate(at codingPath: [any CodingKey]) throws {
                if let devicetype, devicetype != 3, devicetype != 7 {
                    throw StrictJSON.Failure(
                        at: codingPath, CodingKeys.devicetype,
                        "must be 3 (connected TV) or 7 (set-top box), not \(devicetype)")
                }
            }
        }
    }
}
