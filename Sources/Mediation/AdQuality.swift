import SharedTypes

/// What a publisher keeps out of an ad unit's ads: asked of bidders (`badv`, `bcat`, `bapp`,
/// `battr`) and enforced on their bids, since a bidder may not honour what it is asked.
public struct AdQuality: Sendable, Equatable {
    /// Advertiser domains; a domain also blocks its subdomains.
    public var blockedAdvertisers: [String]
    /// Content category ids of `categoryTaxonomy`.
    public var blockedCategories: [String]
    /// OpenRTB's `cattax`: 1 is IAB Content Category Taxonomy 1.0, 2 is 2.0 ...
    public var categoryTaxonomy: Int
    /// App bundles or store ids.
    public var blockedApps: [String]
    /// OpenRTB creative attributes (list 5.3: 1 audio auto-play ... 17).
    public var blockedAttributes: [Int]
    /// A bid that names no advertiser domain is dropped.
    public var requireAdvertiserDomain: Bool

    public init(
        blockedAdvertisers: [String] = [], blockedCategories: [String] = [], categoryTaxonomy: Int = 1,
        blockedApps: [String] = [], blockedAttributes: [Int] = [], requireAdvertiserDomain: Bool = false
    ) {
        self.blockedAdvertisers = blockedAdvertisers.map { $0.lowercased() }
        self.blockedCategories = blockedCategories
        self.categoryTaxonomy = categoryTaxonomy
        self.blockedApps = blockedApps
        self.blockedAttributes = blockedAttributes
        self.requireAdvertiserDomain = requireAdvertiserDomain
    }

    /// Why a bid saying these must be dropped, if it must: the OpenRTB loss reason its notice
    /// carries (205 advertiser, 206 app, 209 category, 210 creative attribute).
    public func exclusion(
        advertiserDomains: [String]?, categories: [String]?, attributes: [Int]?, app: String? = nil
    ) -> AuctionLossReason? {
        let domains = (advertiserDomains ?? []).map { $0.trimmingWhitespace.lowercased() }.filter { !$0.isEmpty }
        if requireAdvertiserDomain, domains.isEmpty { return .advertiserExcluded }
        if domains.contains(where: isBlocked(domain:)) { return .advertiserExcluded }
        if let app, blockedApps.contains(app) { return .appExcluded }
        if let categories, categories.contains(where: blockedCategories.contains) { return .categoryExcluded }
        if let attributes, attributes.contains(where: blockedAttributes.contains) {
            return .creativeAttributeExcluded
        }
        return nil
    }

    /// `domain` is a blocked one or under one (`ads.example.com` under `example.com`).
    private func isBlocked(domain: String) -> Bool {
        blockedAdvertisers.contains { domain == $0 || domain.hasSuffix("." + $0) }
    }
}
