import FoundationEssentials
import SharedTypes

extension NetworkAd {
    /// About how many bytes the ad holds in memory: its content and video as the wire writes
    /// them (image bytes included), and every URL it keeps. What `limits.max_ad_bytes` and
    /// `limits.max_stored_ad_bytes` count.
    public var byteCount: Int {
        let encoder = WireFormat.encoder()
        let content: Int
        switch self.content {
        case .native(let native): content = (try? encoder.encode(native).count) ?? 0
        case .customNative(let custom): content = (try? encoder.encode(custom).count) ?? 0
        case .rewarded(let reward): content = (try? encoder.encode(reward).count) ?? 0
        }
        let video = video.map { (try? encoder.encode($0).count) ?? 0 } ?? 0
        let urls =
            [clickDestination] + deepLinks + impressionTrackers + clickTrackers + dismissTrackers + errorTrackers
            + progressTrackers.values.joined()
        return content + video + urls.reduce(0) { $0 + $1.utf8.count }
    }
}
