import Mediation
import SharedTypes

extension OpenRTBAdNetwork {
    /// Its `setup`: what every bid request says of the app and the device, and the line items'
    /// default `endpoint`. The device's OS, its version and its language are read at set-up.
    @Settings
    public struct Setup: Decodable, Sendable, Equatable {
        /// The bidder's URL for line items that name none.
        var endpoint: String?
        var coppa: Bool?
        var gdpr: Int?
        var app: App?
        var device = Device()

        /// The setup's `app`.
        @Settings
        public struct App: Decodable, Sendable, Equatable {
            var id: String?
            var name: String?
            var bundle: String?
            var storeurl: String?
            var ver: String?
            var publisherID: String?

            var bidRequest: BidRequest.App {
                BidRequest.App(
                    id: id, name: name, bundle: bundle, storeurl: storeurl, ver: ver,
                    publisher: publisherID.map { BidRequest.Publisher(id: $0) })
            }
        }

        /// The setup's `device`, as configured; `w` and `h` are the rewarded video's size.
        @Settings
        public struct Device: Decodable, Sendable, Equatable {
            var ua: String?
            var make: String?
            var model: String?
            var hwv: String?
            var devicetype: Int?
            var osReleasePath = "/etc/os-release"
            var w = 1920
            var h = 1080

            var bidRequest: BidRequest.Device {
                BidRequest.Device(ua: ua, make: make, model: model, hwv: hwv, devicetype: devicetype)
            }
        }
    }
}
