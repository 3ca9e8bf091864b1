import FoundationEssentials
import Logging
import SharedTypes

/// Fetches the images of an ad's content (the icon, the images, the AdChoices icon, a custom
/// format's image assets and media) and carries their bytes with it, base64; an image that
/// cannot be fetched keeps its URL, and says so in the log.
struct AdImageLoader: Sendable {
    let fetcher: any AdFetcher
    let logger: Logger

    func load(_ content: NetworkAd.Content) async -> NetworkAd.Content {
        switch content {
        case .native(var native):
            if let icon = native.icon { native.icon = await withData(icon) }
            var images: [NativeImage] = []
            for image in native.images { images.append(await withData(image)) }
            native.images = images
            if let icon = native.adChoices?.icon { native.adChoices?.icon = await withData(icon) }
            return .native(native)
        case .customNative(var custom):
            for (key, asset) in custom.assets {
                if case .image(let image) = asset { custom.assets[key] = .image(await withData(image)) }
            }
            if let image = custom.media?.image { custom.media?.image = await withData(image) }
            return .customNative(custom)
        case .rewarded:
            return content
        }
    }

    /// `image` with its bytes, when they can be fetched; as it was otherwise (the URL stays).
    private func withData(_ image: NativeImage) async -> NativeImage {
        guard image.data == nil else { return image }
        do {
            var loaded = image
            loaded.data = Data(try await fetcher.fetch(image.url, redirects: .anyOrigin)).base64EncodedString()
            return loaded
        } catch {
            logger.warning(
                "could not load an ad image", metadata: ["url": "\(redactedURL(image.url))", "error": "\(error)"])
            return image
        }
    }
}
