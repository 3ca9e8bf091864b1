import FoundationEssentials
import Mediation
import SecureSignals
import SharedTypes
import Synchronization

/// The publisher's own ads, from a directory of JSON files: a real last line of a waterfall,
/// which fills whenever a file fits, from the `directory` of its setup. A line item's
/// `parameter` names one file (`spring-sale` for `spring-sale.json`), or is `*` for any file of
/// the load's format, taken in turn. Files are read at each load, so the publisher may change
/// them while the daemon runs.
///
/// A file: `{"format": "native" | "rewarded", "native": {...the native schema...},
/// "reward": {"type", "amount"}, "click_url", "deep_links": [...], "impression_trackers": [...],
/// "click_trackers": [...]}`. Images with http(s) URLs are fetched by the daemon.
public final class HouseAdNetwork: AdNetworkAdapter {
    public static let name = "house"
    public static let adapterVersion = SemanticVersion(1, 0, 0)
    public let sdkVersion = SemanticVersion(1, 0, 0)

    /// Its `setup`. A line item takes no options: its `parameter` says which file.
    @Settings
    public struct Setup: Decodable, Sendable, Equatable {
        /// The ads' directory (relative to the configuration file's directory).
        var directory: String
    }

    private let directory: URL
    private let turn = Atomic<Int>(0)

    public init(setup: Setup, context: AdNetworkContext) async throws {
        let path = setup.directory
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory else {
            throw AdLoadError(.invalidRequest, "house ads directory \(path) does not exist")
        }
        directory = URL(fileURLWithPath: path)
    }

    public func loadNativeAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        try pick(.native, request)
    }

    public func loadRewardedAd(_ request: NetworkAdRequest) async throws(AdLoadError) -> NetworkAd {
        try pick(.rewarded, request)
    }

    private func pick(_ format: AdFormat, _ request: NetworkAdRequest) throws(AdLoadError) -> NetworkAd {
        let candidates: [URL]
        if request.parameter == "*" {
            let files =
                (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.map {
                    directory.appendingPathComponent($0)
                } ?? []
            candidates = files.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
        } else {
            guard !request.parameter.contains("/"), !request.parameter.hasPrefix(".") else {
                throw AdLoadError(.invalidRequest, "a house ad is named by its file name, not '\(request.parameter)'")
            }
            candidates = [directory.appendingPathComponent(request.parameter + ".json")]
        }
        var ads: [HouseAd] = []
        for file in candidates {
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            do {
                let ad = try WireFormat.decoder().decode(HouseAd.self, from: data)
                if ad.format == format { ads.append(ad) }
            } catch {
                if request.parameter != "*" {
                    throw AdLoadError(.internalError, "house ad \(file.lastPathComponent) is not valid: \(error)")
                }
            }
        }
        guard !ads.isEmpty else {
            throw AdLoadError(.noFill, "no house \(format.rawValue) ad for '\(request.parameter)'")
        }
        let ad = ads[turn.add(1, ordering: .relaxed).oldValue % ads.count]
        let content: NetworkAd.Content
        switch format {
        case .native:
            guard var native = ad.native else {
                throw AdLoadError(.internalError, "a native house ad needs \"native\"")
            }
            if request.preferences.disableImageLoading {
                native.icon?.data = nil
                native.images = native.images.map {
                    var image = $0
                    image.data = nil
                    return image
                }
            }
            content = .native(native)
        case .rewarded:
            guard let reward = ad.reward else {
                throw AdLoadError(.internalError, "a rewarded house ad needs \"reward\"")
            }
            content = .rewarded(reward)
        }
        return NetworkAd(
            content: content, clickDestination: ad.clickURL, deepLinks: ad.deepLinks ?? [],
            impressionTrackers: ad.impressionTrackers ?? [], clickTrackers: ad.clickTrackers ?? [])
    }
}

/// One house ad file.
@WireKeys
struct HouseAd: Decodable {
    var format: AdFormat
    var native: NativeAd?
    var reward: Reward?
    var clickURL: String
    var deepLinks: [String]?
    var impressionTrackers: [String]?
    var clickTrackers: [String]?

}
