import Foundation
/// Every filter Reel has, by its Core Image name, with its parameters.
///
/// The looks are Reel's own (Apple does not publish its curves); each is documented
/// here by what it does to luma and chroma, and the reference sheet
/// (`reel filters --sheet`) shows them side by side.
public enum FilterCatalog {
    /// One tunable value of a filter.
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var defaultValue: Double
        public var range: ClosedRange<Double>
        public var summary: String
    }

    /// What a filter is and takes.
    public struct Entry: Sendable {
        public var name: String
        public var summary: String
        public var parameters: [Parameter]
        /// Colour effects fold into one table pass; spatial ones look at neighbours.
        public var isColorEffect: Bool
    }

    public static let entries: [Entry] = [
        Entry(name: "PhotoEffectChrome", summary: "Vivid: saturation x1.35, contrast x1.15, a touch brighter.",
              parameters: [], isColorEffect: true),
        Entry(name: "PhotoEffectFade", summary: "Faded: saturation x0.55, blacks lifted to 12 %, whites down to 88 %.",
              parameters: [], isColorEffect: true),
        Entry(name: "PhotoEffectInstant", summary: "Instant film: warm (Cb -0.045, Cr +0.045), saturation x0.8, soft blacks.",
              parameters: [], isColorEffect: true),
        Entry(name: "PhotoEffectMono", summary: "Black and white: chroma removed, luma unchanged.",
              parameters: [], isColorEffect: true),
        Entry(name: "PhotoEffectNoir", summary: "Hard black and white: chroma removed, luma contrast x1.6 with deep shadows.",
              parameters: [], isColorEffect: true),
        Entry(name: "PhotoEffectProcess", summary: "Cross-processed: hue turned 25°, green-cyan cast, saturation x1.1, contrast x1.1.",
              parameters: [], isColorEffect: true),
        Entry(name: "PhotoEffectTonal", summary: "Soft black and white: chroma removed, luma 10-90 % with a lifted gamma.",
              parameters: [], isColorEffect: true),
        Entry(name: "PhotoEffectTransfer", summary: "Golden transfer print: warm gold cast, saturation x1.2, contrast x1.05.",
              parameters: [], isColorEffect: true),
        Entry(name: "ColorControls", summary: "Brightness (added to luma), contrast (about mid-grey), saturation (chroma scale).",
              parameters: [
                Parameter(name: "brightness", defaultValue: 0, range: -1...1, summary: "Added to normalised luma."),
                Parameter(name: "contrast", defaultValue: 1, range: 0.25...4, summary: "Luma scale about mid-grey."),
                Parameter(name: "saturation", defaultValue: 1, range: 0...2, summary: "Chroma scale; 0 is grey."),
              ], isColorEffect: true),
        Entry(name: "ExposureAdjust", summary: "Exposure in stops: light x2^ev in linear light (gamma 2.2).",
              parameters: [Parameter(name: "ev", defaultValue: 0.5, range: -10...10, summary: "Stops of exposure.")],
              isColorEffect: true),
        Entry(name: "SepiaTone", summary: "Chroma drawn toward sepia brown (Cb -0.12, Cr +0.09), luma kept.",
              parameters: [Parameter(name: "intensity", defaultValue: 1, range: 0...1, summary: "0 none, 1 full sepia.")],
              isColorEffect: true),
        Entry(name: "Vignette", summary: "Darkens toward the corners: luma x(1 - intensity * ramp(distance / radius)).",
              parameters: [
                Parameter(name: "intensity", defaultValue: 1, range: 0...2, summary: "How dark the corners get."),
                Parameter(name: "radius", defaultValue: 1, range: 0.1...3, summary: "Where the darkening starts, 1 = half the diagonal."),
              ], isColorEffect: false),
        Entry(name: "GaussianBlur", summary: "Gaussian blur through libavfilter's gblur (sigma = radius).",
              parameters: [Parameter(name: "radius", defaultValue: 10, range: 0...100, summary: "Standard deviation in pixels.")],
              isColorEffect: false),
        Entry(name: "ColorCube", summary: "A 3D LUT from an Adobe .cube file, tetrahedral interpolation.",
              parameters: [], isColorEffect: false),
    ]

    /// The catalog's entry for a filter.
    /// - Parameter name: The filter's name, with or without Core Image's `CI` prefix.
    /// - Returns: Its summary and parameters; nil for a filter Reel does not have.
    public static func entry(named name: String) -> Entry? {
        let key = name.hasPrefix("CI") ? String(name.dropFirst(2)) : name
        return entries.first { $0.name == key }
    }

    /// The look of a colour effect with `values` for its parameters (defaults for the rest).
    static func look(named name: String, values: [String: Double]) -> ColorLook? {
        func value(_ key: String, _ fallback: Double) -> Double { values[key] ?? fallback }
        switch name {
        case "PhotoEffectMono":
            return .tint(saturation: 0)
        case "PhotoEffectNoir":
            return .tint(saturation: 0) { t in
                let contrasted = ColorLook.contrast(pow(t, 1.25), 1.6, pivot: 0.45)
                return min(max(contrasted, 0), 1)
            }
        case "PhotoEffectTonal":
            return .tint(saturation: 0) { t in 0.1 + 0.8 * pow(t, 0.85) }
        case "PhotoEffectChrome":
            return .tint(saturation: 1.35) { t in ColorLook.contrast(t, 1.15) + 0.02 }
        case "PhotoEffectFade":
            return .tint(saturation: 0.55) { t in 0.12 + 0.76 * t }
        case "PhotoEffectInstant":
            return .tint(saturation: 0.8, cb: -0.045, cr: 0.045) { t in 0.06 + 0.9 * pow(t, 0.95) }
        case "PhotoEffectProcess":
            return .tint(saturation: 1.1, cb: 0.03, cr: -0.035, hue: 25) { t in ColorLook.contrast(t, 1.1) }
        case "PhotoEffectTransfer":
            return .tint(saturation: 1.2, cb: -0.06, cr: 0.025) { t in ColorLook.contrast(t, 1.05) + 0.01 }
        case "ColorControls":
            let brightness = value("brightness", 0), contrast = value("contrast", 1)
            return .tint(saturation: value("saturation", 1)) { t in ColorLook.contrast(t, contrast) + brightness }
        case "ExposureAdjust":
            let gain = pow(2, value("ev", 0.5) / 2.2)
            return .tint(saturation: gain) { t in t * gain }
        case "SepiaTone":
            let amount = value("intensity", 1)
            return ColorLook(curve: { $0 }, chroma: { u, v in
                (u + (-0.12 - u) * amount, v + (0.09 - v) * amount)
            })
        default:
            return nil
        }
    }
}
