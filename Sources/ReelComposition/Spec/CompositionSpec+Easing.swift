import Foundation
public import ReelCore

extension CompositionSpec {
    /// How an animation eases between its values: a name (`linear`, `easeIn`, `easeOut`,
    /// `easeInOut`, `default`), `{"cubicBezier": [x1, y1, x2, y2]}` or `{"spring": {mass,
    /// stiffness, damping, initialVelocity}}`. ``MediaTimingFunction`` in Swift.
    public enum Easing: Codable, Sendable, Equatable {
        case named(String)
        case cubicBezier([Double])
        case spring(SpringSpec)

        private enum Keys: String, CodingKey {
            case cubicBezier, spring
        }

        /// Reads a name, or an object with `cubicBezier` or `spring`.
        /// - Parameter decoder: The JSON decoder.
        /// - Throws: `DecodingError` for anything else.
        public init(from decoder: any Decoder) throws {
            if let name = try? decoder.singleValueContainer().decode(String.self) {
                self = .named(name)
                return
            }
            let container = try decoder.container(keyedBy: Keys.self)
            if let points = try container.decodeIfPresent([Double].self, forKey: .cubicBezier) {
                self = .cubicBezier(points)
            } else {
                self = .spring(try container.decode(SpringSpec.self, forKey: .spring))
            }
        }

        /// Writes the name or the object.
        /// - Parameter encoder: The JSON encoder.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .named(let name):
                var container = encoder.singleValueContainer()
                try container.encode(name)
            case .cubicBezier(let points):
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(points, forKey: .cubicBezier)
            case .spring(let spring):
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(spring, forKey: .spring)
            }
        }

        /// The timing function it names; nil for what reading a spec refuses.
        public var timingFunction: MediaTimingFunction? {
            switch self {
            case .named(let name):
                return Easing.names[name].map { MediaTimingFunction(name: $0) }
            case .cubicBezier(let p):
                guard p.count == 4, p.allSatisfy(\.isFinite), (0...1).contains(p[0]), (0...1).contains(p[2]) else { return nil }
                return MediaTimingFunction(controlPoints: p[0], p[1], p[2], p[3])
            case .spring(let s):
                let spring = MediaTimingFunction.Spring(mass: s.mass ?? 1, stiffness: s.stiffness ?? 100, damping: s.damping ?? 10,
                                                        initialVelocity: s.initialVelocity ?? 0)
                guard spring.mass > 0, spring.stiffness > 0, spring.damping >= 0, spring.initialVelocity.isFinite else { return nil }
                return MediaTimingFunction(spring: spring)
            }
        }

        /// The spec's names for the named curves.
        static let names: [String: MediaTimingFunction.Name] = [
            "linear": .linear, "easeIn": .easeIn, "easeOut": .easeOut, "easeInOut": .easeInEaseOut, "default": .default,
        ]
    }

    /// A spring's constants; each has `CASpringAnimation`'s default when absent.
    public struct SpringSpec: Codable, Sendable, Equatable {
        /// Above 0 (default 1).
        public var mass: Double?
        /// Above 0 (default 100).
        public var stiffness: Double?
        /// 0 or more (default 10).
        public var damping: Double?
        /// Whole moves a second toward the end value (default 0).
        public var initialVelocity: Double?
    }

    /// One easing for every segment of an animation, or one per segment.
    public enum Easings: Codable, Sendable, Equatable {
        case all(Easing)
        case each([Easing])

        /// Reads one easing or a list of them.
        /// - Parameter decoder: The JSON decoder.
        /// - Throws: `DecodingError` for anything else.
        public init(from decoder: any Decoder) throws {
            if let list = try? decoder.singleValueContainer().decode([Easing].self) {
                self = .each(list)
            } else {
                self = .all(try Easing(from: decoder))
            }
        }

        /// Writes the easing or the list.
        /// - Parameter encoder: The JSON encoder.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .all(let easing): try easing.encode(to: encoder)
            case .each(let list):
                var container = encoder.singleValueContainer()
                try container.encode(list)
            }
        }

        /// The timing functions of an animation with `segments` segments.
        /// - Parameters:
        ///   - segments: The number of values less one.
        ///   - path: The spec path errors name (`overlays[0].animations[1].easing`).
        /// - Returns: One timing function per segment.
        /// - Throws: ``ReelError`` naming the path of an easing that is not one, or a list of
        ///   the wrong length.
        public func timingFunctions(segments: Int, at path: String) throws(ReelError) -> [MediaTimingFunction] {
            switch self {
            case .all(let easing):
                guard let function = easing.timingFunction else { throw CompositionSpec.easingRefusal(at: path) }
                return Array(repeating: function, count: max(segments, 1))
            case .each(let list):
                guard list.count == segments else {
                    throw ReelError(.invalidArgument, "wants one easing per segment (\(segments), one fewer than the values), not \(list.count)",
                                    subject: path)
                }
                var functions: [MediaTimingFunction] = []
                for (index, easing) in list.enumerated() {
                    guard let function = easing.timingFunction else { throw CompositionSpec.easingRefusal(at: "\(path)[\(index)]") }
                    functions.append(function)
                }
                return functions
            }
        }
    }

    static func easingRefusal(at path: String, not value: String? = nil) -> ReelError {
        let choices = "linear, easeIn, easeOut, easeInOut, default, {\"cubicBezier\": [x1, y1, x2, y2]} or {\"spring\": {...}}"
        return ReelError(.invalidArgument, "is \(choices)\(value.map { ", not \($0)" } ?? "")", subject: path)
    }

    static let bezierXRule = NumberRule(range: 0...1, words: "from 0 to 1 (a control point's time)")
    static let bezierYRule = NumberRule(range: -100...100, words: "from -100 to 100")

    /// Checks an animation's raw `easing` value: what it may be, and a list's length.
    /// - Parameters:
    ///   - value: The JSON value.
    ///   - path: Its spec path.
    ///   - segments: The animation's segments (values less one), or nil when unknown.
    static func checkEasing(_ value: Any, at path: String, segments: Int?, inList: Bool = false) throws(ReelError) {
        if let name = value as? String {
            guard Easing.names[name] != nil else { throw easingRefusal(at: path, not: "'\(ReelError.quoted(name, limit: 40))'") }
        } else if let list = value as? [Any], !inList {
            if let segments, list.count != segments {
                throw ReelError(.invalidData, "wants one easing per segment (\(segments), one fewer than the values), not \(list.count)",
                                subject: path)
            }
            for (index, element) in list.enumerated() {
                try checkEasing(element, at: "\(path)[\(index)]", segments: nil, inList: true)
            }
        } else if let object = value as? [String: Any], object.count == 1 {
            if let points = object["cubicBezier"] {
                let numbers = (points as? [Any])?.compactMap(number) ?? []
                guard let list = points as? [Any], list.count == 4, numbers.count == 4 else {
                    throw ReelError(.invalidData, "wants four numbers [x1, y1, x2, y2], such as [0.42, 0, 0.58, 1]",
                                    subject: "\(path).cubicBezier")
                }
                for (index, coordinate) in numbers.enumerated() {
                    let rule = index % 2 == 0 ? bezierXRule : bezierYRule
                    guard rule.admits(coordinate) else { throw rule.refusal(coordinate, at: "\(path).cubicBezier[\(index)]") }
                }
            } else if let spring = object["spring"] {
                guard spring is [String: Any] else {
                    throw ReelError(.invalidData, "wants an object such as {\"damping\": 12}", subject: "\(path).spring")
                }
            } else {
                throw easingRefusal(at: path)
            }
        } else if value is [String: Any] {
            throw ReelError(.invalidData, "wants exactly one of cubicBezier and spring", subject: path)
        } else {
            throw easingRefusal(at: path)
        }
    }
}
