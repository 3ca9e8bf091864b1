import API
import Consent
import Hummingbird
import Mediation
import SecureSignals
import SharedTypes

// The bodies the socket API answers with, which handlers return as they are: the request
// context's encoder (`WireResponseEncoder`) writes each.

extension MediatedAd: ResponseEncodable {}
extension LifecycleOutcome: ResponseEncodable {}
extension AdUnitList: ResponseEncodable {}
extension CollectionResult: ResponseEncodable {}
extension HealthReport: ResponseEncodable {}
extension RecipientList: ResponseEncodable {}
extension JSONValue: ResponseEncodable {}
extension PrivacyAnswer: ResponseEncodable {}
extension PrivacyDecisions: ResponseEncodable {}
extension RewardList: ResponseEncodable {}
extension AppList: ResponseEncodable {}
extension AdapterList: ResponseEncodable {}
extension AdapterReset: ResponseEncodable {}
extension ClaimedReward: ResponseEncodable {}
extension LoadTraceList: ResponseEncodable {}
extension LoadTrace: ResponseEncodable {}
extension SignalsTraceList: ResponseEncodable {}
extension InspectorOverview: ResponseEncodable {}
