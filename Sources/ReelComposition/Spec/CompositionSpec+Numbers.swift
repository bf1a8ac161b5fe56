import Foundation
import ReelCore

extension CompositionSpec {
    /// A numeric key's documented range, checked when the spec is read: every number that
    /// reaches the renderer, the timeline picture or a size computation is finite and inside
    /// its range before anything is built, and is refused by its spec path otherwise.
    struct NumberRule: Sendable {
        var range: ClosedRange<Double>
        /// Whether the lower bound itself is refused (a duration of 0).
        var aboveLowerBound = false
        var wholeNumber = false
        /// The range as the docs write it: "from 1 to 1000 pixels".
        var words: String

        func admits(_ value: Double) -> Bool {
            value.isFinite && range.contains(value) && !(aboveLowerBound && value == range.lowerBound)
                && (!wholeNumber || value.rounded() == value)
        }

        func refusal(_ value: Double, at path: String) -> ReelError {
            let kind = wholeNumber ? "a whole number" : "a number"
            return ReelError(.invalidData, "wants \(kind) \(words), not \(CompositionSpec.format(value))", subject: path)
        }
    }

    /// Overlay coordinates may lie off the frame, but not further than twice the largest frame.
    static let coordinateRule = NumberRule(range: -16384...16384, words: "from -16384 to 16384 pixels")
    static let secondsRule = NumberRule(range: 0...10_000_000, words: "from 0 to 10000000 seconds")

    static let springMassRule = NumberRule(range: 0...1000, aboveLowerBound: true, words: "above 0 and at most 1000")
    static let springStiffnessRule = NumberRule(range: 0...1_000_000, aboveLowerBound: true, words: "above 0 and at most 1000000")
    static let springDampingRule = NumberRule(range: 0...1_000_000, words: "from 0 to 1000000")
    static let springVelocityRule = NumberRule(range: -1000...1000, words: "from -1000 to 1000 moves a second")

    static let fractionRule = NumberRule(range: 0...1, words: "from 0 to 1 (a fraction of the picture)")
    static let partRule = NumberRule(range: 0...1, aboveLowerBound: true, words: "above 0 and at most 1 (a fraction of the picture)")

    /// The rules by key pattern (`clips[].speed`); `values` of animations depend on the property.
    static let numberRules: [String: NumberRule] = [
        "renderSize.width": NumberRule(range: 16...8192, wholeNumber: true, words: "from 16 to 8192"),
        "renderSize.height": NumberRule(range: 16...8192, wholeNumber: true, words: "from 16 to 8192"),
        "frameRate": NumberRule(range: 1...240, words: "from 1 to 240 frames a second"),
        "clips[].range.start": secondsRule,
        "clips[].range.end": secondsRule,
        "clips[].speed": NumberRule(range: 1.0 / 16...16, words: "from 1/16 to 16"),
        "clips[].stabilize": NumberRule(range: 0...1, words: "from 0 to 1"),
        "clips[].transition.duration": NumberRule(range: 0.01...60, words: "from 0.01 to 60 seconds"),
        "overlays[].frame.x": coordinateRule,
        "overlays[].frame.y": coordinateRule,
        "overlays[].frame.width": NumberRule(range: 0...8192, aboveLowerBound: true, words: "above 0 and at most 8192 pixels"),
        "overlays[].frame.height": NumberRule(range: 0...8192, aboveLowerBound: true, words: "above 0 and at most 8192 pixels"),
        "overlays[].opacity": NumberRule(range: 0...1, words: "from 0 to 1"),
        "overlays[].fontSize": NumberRule(range: 1...1000, wholeNumber: true, words: "from 1 to 1000 pixels"),
        "overlays[].animations[].keyTimes[]": NumberRule(range: 0...1, words: "from 0 to 1"),
        "overlays[].animations[].begin": secondsRule,
        "overlays[].animations[].duration": NumberRule(range: 0.001...10_000_000, words: "from 0.001 to 10000000 seconds"),
        "overlays[].animations[].easing.spring.mass": springMassRule,
        "overlays[].animations[].easing.spring.stiffness": springStiffnessRule,
        "overlays[].animations[].easing.spring.damping": springDampingRule,
        "overlays[].animations[].easing.spring.initialVelocity": springVelocityRule,
        "overlays[].animations[].easing[].spring.mass": springMassRule,
        "overlays[].animations[].easing[].spring.stiffness": springStiffnessRule,
        "overlays[].animations[].easing[].spring.damping": springDampingRule,
        "overlays[].animations[].easing[].spring.initialVelocity": springVelocityRule,
        "clips[].duration": NumberRule(range: 0...86400, aboveLowerBound: true, words: "above 0 and at most 86400 seconds"),
        "animation.loop": NumberRule(range: 0...65535, wholeNumber: true, words: "from 0 to 65535"),
        "clips[].freeze.at": secondsRule,
        "clips[].freeze.duration": NumberRule(range: 0...86400, aboveLowerBound: true, words: "above 0 and at most 86400 seconds"),
        "clips[].kenBurns.start.x": fractionRule,
        "clips[].kenBurns.start.y": fractionRule,
        "clips[].kenBurns.start.width": partRule,
        "clips[].kenBurns.start.height": partRule,
        "clips[].kenBurns.end.x": fractionRule,
        "clips[].kenBurns.end.y": fractionRule,
        "clips[].kenBurns.end.width": partRule,
        "clips[].kenBurns.end.height": partRule,
        "clips[].kenBurns.easing.spring.mass": springMassRule,
        "clips[].kenBurns.easing.spring.stiffness": springStiffnessRule,
        "clips[].kenBurns.easing.spring.damping": springDampingRule,
        "clips[].kenBurns.easing.spring.initialVelocity": springVelocityRule,
        "audio.music.duck.amount": NumberRule(range: 0...60, aboveLowerBound: true, words: "above 0 and at most 60 dB"),
        "audio.music.duck.threshold": NumberRule(range: -80...0, words: "from -80 to 0 dBFS"),
        "audio.music.duck.attack": NumberRule(range: 0...5, words: "from 0 to 5 seconds"),
        "audio.music.duck.release": NumberRule(range: 0...10, words: "from 0 to 10 seconds"),
        "audio.loudness": NumberRule(range: -70 ... -5, words: "from -70 to -5 LUFS"),
        "audio.volume": NumberRule(range: 0...4, words: "from 0 to 4"),
        "audio.music.volume": NumberRule(range: 0...4, words: "from 0 to 4"),
        "audio.music.fadeIn": NumberRule(range: 0...600, words: "from 0 to 600 seconds"),
        "audio.music.fadeOut": NumberRule(range: 0...600, words: "from 0 to 600 seconds"),
        "clips[].fps": NumberRule(range: 1...240, words: "from 1 to 240 frames a second"),
        "layers[].fps": NumberRule(range: 1...240, words: "from 1 to 240 frames a second"),
        "clips[].audio.volume": NumberRule(range: 0...4, words: "from 0 to 4"),
        "clips[].audio.fadeIn": NumberRule(range: 0...600, words: "from 0 to 600 seconds"),
        "clips[].audio.fadeOut": NumberRule(range: 0...600, words: "from 0 to 600 seconds"),
    ]

    /// Each animated property's values.
    static let animationValueRules: [String: NumberRule] = [
        "opacity": NumberRule(range: 0...1, words: "from 0 to 1"),
        "scale": NumberRule(range: -100...100, words: "from -100 to 100"),
        "rotation": NumberRule(range: -1000...1000, words: "from -1000 to 1000 radians"),
        "position": coordinateRule,
    ]

    /// A number as the user wrote it, near enough: `320.5`, `1e+308`, `-0`.
    static func format(_ value: Double) -> String {
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Walks the parsed JSON by the shapes `knownKeys` gives, checking every number against
    /// its rule, animation values against their property, and what the decoders would pass
    /// over: a transition on the last clip (there is no next clip to go into).
    static func checkValues(_ object: Any, path: String, pattern: String) throws(ReelError) {
        if let dictionary = object as? [String: Any] {
            if pattern == "overlays[].animations[]" { try checkAnimation(dictionary, at: path) }
            if pattern == "overlays[].reveal", let easing = dictionary["easing"] { try checkEasing(easing, at: "\(path).easing", segments: 1) }
            if pattern == "clips[]" { try checkStillKeys(dictionary, at: path) }
            if pattern == "animation" { try checkAnimatedOutput(dictionary) }
            if pattern.isEmpty, let clips = dictionary["clips"] as? [Any], let last = clips.last as? [String: Any],
               let transition = last["transition"] {
                let type = (transition as? [String: Any])?["type"] as? String
                if type != "none" {
                    throw ReelError(.invalidData, "the last clip has no next clip to go into (remove it, or add a clip)",
                                    subject: "clips[\(clips.count - 1)].transition")
                }
            }
            for (key, value) in dictionary {
                try checkValues(value, path: path.isEmpty ? key : "\(path).\(key)", pattern: pattern.isEmpty ? key : "\(pattern).\(key)")
            }
        } else if let array = object as? [Any] {
            guard pattern != "overlays[].animations[].values" else { return }
            for (index, value) in array.enumerated() {
                try checkValues(value, path: "\(path)[\(index)]", pattern: "\(pattern)[]")
            }
        } else if let rule = numberRules[pattern] ?? textNumberRules[pattern] ?? subtitleNumberRules[pattern], let number = number(object), !rule.admits(number) {
            throw rule.refusal(number, at: path)
        }
    }

    /// A JSON number (not `true` or `false`, which Foundation also gives as NSNumber).
    static func number(_ object: Any) -> Double? {
        guard let value = object as? NSNumber, String(cString: value.objCType) != "c" else { return nil }
        return value.doubleValue
    }

    /// `animation.palette` and `animation.dither`: known names.
    private static func checkAnimatedOutput(_ animation: [String: Any]) throws(ReelError) {
        if let palette = animation["palette"] {
            guard let name = palette as? String, AnimatedExport.Palette(rawValue: name) != nil else {
                throw ReelError(.invalidData, "is file or scene, not \((palette as? String).map { "'\(ReelError.quoted($0, limit: 40))'" } ?? "that")",
                                subject: "animation.palette")
            }
        }
        if let dither = animation["dither"] {
            guard let name = dither as? String, AnimatedExport.ditherings.contains(name) else {
                throw ReelError(.invalidData, "is \(AnimatedExport.ditherings.joined(separator: ", ")), not \((dither as? String).map { "'\(ReelError.quoted($0, limit: 40))'" } ?? "that")",
                                subject: "animation.dither")
            }
        }
    }

    /// A clip's `fit` and `kenBurns`: a known fit, rectangles inside the picture, one easing.
    private static func checkStillKeys(_ clip: [String: Any], at path: String) throws(ReelError) {
        if let fit = clip["fit"] {
            guard let name = fit as? String, ClipSequence.Fit(rawValue: name) != nil else {
                let shown = (fit as? String).map { "'\(ReelError.quoted($0, limit: 40))'" } ?? "that"
                throw ReelError(.invalidData, "is contain, cover or fill, not \(shown)", subject: "\(path).fit")
            }
        }
        guard let kenBurns = clip["kenBurns"] as? [String: Any] else { return }
        for end in ["start", "end"] {
            let place = "\(path).kenBurns.\(end)"
            guard let rect = kenBurns[end] as? [String: Any] else {
                throw ReelError(.invalidData, kenBurns[end] == nil ? "is missing" : "wants {x, y, width, height} in fractions of the picture",
                                subject: place)
            }
            for key in ["x", "y", "width", "height"] where rect[key].flatMap(number) == nil {
                throw ReelError(.invalidData, rect[key] == nil ? "is missing" : "wants a number", subject: "\(place).\(key)")
            }
            let x = rect["x"].flatMap(number) ?? 0, y = rect["y"].flatMap(number) ?? 0
            let width = rect["width"].flatMap(number) ?? 0, height = rect["height"].flatMap(number) ?? 0
            if x + width > 1 + 1e-9 {
                throw ReelError(.invalidData, "reaches past the picture's right edge (x + width = \(format(x + width)), at most 1)", subject: place)
            }
            if y + height > 1 + 1e-9 {
                throw ReelError(.invalidData, "reaches past the picture's bottom edge (y + height = \(format(y + height)), at most 1)", subject: place)
            }
        }
        if let easing = kenBurns["easing"] { try checkEasing(easing, at: "\(path).kenBurns.easing", segments: 1) }
    }

    private static func checkAnimation(_ animation: [String: Any], at path: String) throws(ReelError) {
        if let easing = animation["easing"] {
            let segments = (animation["values"] as? [Any]).map { max($0.count - 1, 1) }
            try checkEasing(easing, at: "\(path).easing", segments: segments)
        }
        guard let property = animation["property"] as? String, let rule = animationValueRules[property],
              let values = animation["values"] as? [Any] else { return }
        for (index, value) in values.enumerated() {
            let place = "\(path).values[\(index)]"
            if property == "position" {
                guard let pair = value as? [Any], pair.count == 2, let x = number(pair[0]), let y = number(pair[1]) else {
                    throw ReelError(.invalidData, "a position is an [x, y] pair of numbers, such as [320, 240]", subject: place)
                }
                for (axis, coordinate) in [("[0]", x), ("[1]", y)] where !rule.admits(coordinate) {
                    throw rule.refusal(coordinate, at: place + axis)
                }
            } else {
                guard let number = number(value) else {
                    throw ReelError(.invalidData, "\(property) values are single numbers, not pairs", subject: place)
                }
                guard rule.admits(number) else { throw rule.refusal(number, at: place) }
            }
        }
    }
}
