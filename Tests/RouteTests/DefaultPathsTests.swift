import Foundation
import Testing

@testable import Daemon

/// Where the state lives when the configuration does not say: somewhere the daemon's user can
/// make it, whoever that user is.
struct DefaultPathsTests {
    @Test func systemdsStateDirectoryComesFirst() {
        let environment = ["STATE_DIRECTORY": "/var/lib/secure-signals:/var/lib/other", "HOME": "/home/ann"]
        #expect(ResolvedConfiguration.defaultStateDirectory(environment: environment) == "/var/lib/secure-signals")
    }

    @Test func thenTheXDGStateHomeThenTheHome() {
        #expect(
            ResolvedConfiguration.defaultStateDirectory(environment: ["XDG_STATE_HOME": "/x", "HOME": "/home/ann"])
                == "/x/secure-signals")
        #expect(
            ResolvedConfiguration.defaultStateDirectory(environment: ["HOME": "/home/ann"])
                == "/home/ann/.local/state/secure-signals")
    }

    @Test func aSystemUsersRootHomeOrARelativeValueIsNoHome() {
        let fallback = FileManager.default.currentDirectoryPath + "/.run/state"
        #expect(ResolvedConfiguration.defaultStateDirectory(environment: ["HOME": "/"]) == fallback)
        #expect(ResolvedConfiguration.defaultStateDirectory(environment: ["HOME": ""]) == fallback)
        #expect(ResolvedConfiguration.defaultStateDirectory(environment: ["XDG_STATE_HOME": "state"]) == fallback)
        #expect(ResolvedConfiguration.defaultStateDirectory(environment: [:]) == fallback)
    }
}
