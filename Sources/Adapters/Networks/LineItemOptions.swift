import Mediation
import SecureSignals
import SharedTypes

/// Options that several networks' line items share, read the same way everywhere.
extension AdapterOptions {
    /// `reward_type` (default "reward") and `reward_amount` (default 1): what a rewarded ad grants.
    func reward() throws(AdLoadError) -> Reward {
        try read { Reward(type: try string("reward_type") ?? "reward", amount: try number("reward_amount") ?? 1) }
    }

    /// A timeout in milliseconds, 1 to 60 000.
    func timeoutMilliseconds(_ key: String, default value: Int) throws(AdLoadError) -> Int {
        let timeout = try read { try int(key) ?? value }
        guard (1...60_000).contains(timeout) else {
            throw AdLoadError(.invalidRequest, "option '\(key)' must be 1 to 60000")
        }
        return timeout
    }

    /// The option's value, its error an `invalid_request` naming the option.
    func read<Value>(_ body: () throws -> Value) throws(AdLoadError) -> Value {
        do {
            return try body()
        } catch let error as AdLoadError {
            throw error
        } catch {
            throw AdLoadError(.invalidRequest, (error as? SignalError)?.message ?? "\(error)")
        }
    }
}
