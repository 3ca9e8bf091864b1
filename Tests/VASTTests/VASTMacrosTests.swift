import Testing

@testable import VAST
