import API
import Mediation

extension AdLoadBody {
    /// The load the body asks for, as the ad store takes it.
    var request: AdLoadRequest {
        var request = AdLoadRequest(adUnit: adUnit, format: format)
        request.formatIDs = formatIDs
        request.force = force
        request.test = test
        request.lineItem = lineItem
        if let options {
            var preferences = NativeAdPreferences()
            preferences.mediaAspectRatio = options.mediaAspectRatio ?? preferences.mediaAspectRatio
            preferences.multipleImages = options.multipleImages
            preferences.disableImageLoading = options.disableImageLoading
            preferences.customClickHandling = options.customClickHandling
            preferences.openableSchemes = options.openableSchemes
            request.preferences = preferences
        }
        if let ssv {
            request.ssv = ServerSideVerification(customData: ssv.customData, userID: ssv.userID)
        }
        return request
    }
}
