import SecureSignals
import SharedTypes

/// The Native 1.2 request the `openrtb` network asks bidders with: one asset per field of the
/// daemon's native schema, each with a fixed id that the response's assets are read back by.
enum NativeRequest {
    /// Asset ids, and what each becomes in `NativeAd`.
    enum Asset: Int, CaseIterable {
        case title = 1
        case mainImage
        case icon
        case body
        case sponsoredBy
        case callToAction
        case rating
        case price
    }

    /// Native 1.2 data asset types (spec §7.4).
    enum DataType: Int {
        case sponsored = 1
        case desc = 2
        case rating = 3
        case price = 6
        case salePrice = 7
        case callToAction = 12
    }

    /// Native 1.2 image asset types (spec §7.4).
    enum ImageType: Int {
        case icon = 1
        case main = 3
    }

    /// The most characters a text asset may have (its `len`); nil where the request sets none.
    static func length(of asset: Asset) -> Int? {
        switch asset {
        case .title: 90
        case .body: 200
        case .sponsoredBy: 25
        case .callToAction: 15
        default: nil
        }
    }

    /// The request object, before it is encoded into `imp.native.request`.
    static func object(mainImageMinimum: (width: Int, height: Int)) -> JSONValue {
        func number(_ value: Int) -> JSONValue { .number(Double(value)) }
        func asset(_ id: Asset, required: Bool, _ body: (String, JSONValue)) -> JSONValue {
            .object(["id": number(id.rawValue), "required": number(required ? 1 : 0), body.0: body.1])
        }
        func data(_ type: DataType, for id: Asset) -> (String, JSONValue) {
            var object: [String: JSONValue] = ["type": number(type.rawValue)]
            if let length = length(of: id) { object["len"] = number(length) }
            return ("data", .object(object))
        }
        let title: [String: JSONValue] = length(of: .title).map { ["len": number($0)] } ?? [:]
        let assets: [JSONValue] = [
            asset(.title, required: true, ("title", .object(title))),
            asset(
                .mainImage, required: true,
                (
                    "img",
                    .object([
                        "type": number(ImageType.main.rawValue), "wmin": number(mainImageMinimum.width),
                        "hmin": number(mainImageMinimum.height),
                    ])
                )),
            asset(
                .icon, required: false,
                ("img", .object(["type": number(ImageType.icon.rawValue), "wmin": number(50), "hmin": number(50)]))),
            asset(.body, required: false, data(.desc, for: .body)),
            asset(.sponsoredBy, required: false, data(.sponsored, for: .sponsoredBy)),
            asset(.callToAction, required: false, data(.callToAction, for: .callToAction)),
            asset(.rating, required: false, data(.rating, for: .rating)),
            asset(.price, required: false, data(.price, for: .price)),
        ]
        return .object([
            "ver": .string("1.2"),
            // Context 1 content-centric, placement 1 in-feed: the app lays the ad out itself.
            "context": number(1), "plcmttype": number(1), "plcmtcnt": number(1),
            "assets": .array(assets),
            // Impression trackers by image pixel (event 1, method 1): the daemon fetches them.
            "eventtrackers": .array([.object(["event": number(1), "methods": .array([number(1)])])]),
            "privacy": number(1),
        ])
    }
}
