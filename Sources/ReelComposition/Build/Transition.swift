public import ReelCore

/// How one clip gives way to the next where they overlap.
public enum Transition: Sendable, Hashable {
    /// Straight cut: the clips do not overlap.
    case none
    /// The outgoing clip fades out over the incoming one.
    case dissolve(duration: MediaTime)
    /// The incoming clip pushes the outgoing one off screen, toward `direction`.
    case push(duration: MediaTime, direction: Direction)

    public enum Direction: String, Sendable, Hashable, CaseIterable {
        case left, right, up, down
    }

    /// The overlap the transition needs.
    public var duration: MediaTime {
        switch self {
        case .none: .zero
        case .dissolve(let duration), .push(let duration, _): duration
        }
    }

    /// Parses `dissolve:2`, `push:1.5`, `push-up:1`, `none`.
    public init?(spec: String) {
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        let seconds = parts.count > 1 ? Double(parts[1]) : 1
        guard let seconds, seconds > 0, seconds <= 60 else {
            if parts.first == "none" { self = .none; return }
            return nil
        }
        let duration = MediaTime(seconds: seconds, preferredTimescale: 600)
        switch parts[0] {
        case "none": self = .none
        case "dissolve": self = .dissolve(duration: duration)
        case "push", "push-left": self = .push(duration: duration, direction: .left)
        case "push-right": self = .push(duration: duration, direction: .right)
        case "push-up": self = .push(duration: duration, direction: .up)
        case "push-down": self = .push(duration: duration, direction: .down)
        default: return nil
        }
    }
}
