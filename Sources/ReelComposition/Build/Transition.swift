public import ReelCore

/// How one clip gives way to the next where they overlap.
public enum Transition: Sendable, Hashable {
    /// Straight cut: the clips do not overlap.
    case none
    /// The outgoing clip fades out over the incoming one.
    case dissolve(duration: MediaTime)
    /// The incoming clip pushes the outgoing one off screen, toward `direction`.
    case push(duration: MediaTime, direction: Direction)
    /// The incoming clip slides in over the outgoing one, moving toward `direction`.
    case slide(duration: MediaTime, direction: Direction)
    /// An edge moving toward `direction` uncovers the incoming clip.
    case wipe(duration: MediaTime, direction: Direction)
    /// Down to black over the first half, up from black over the second.
    case fadeThroughBlack(duration: MediaTime)
    /// The incoming clip grows from the centre to fill the frame.
    case zoom(duration: MediaTime)

    public enum Direction: String, Sendable, Hashable, CaseIterable {
        case left, right, up, down
    }

    /// The overlap the transition needs.
    public var duration: MediaTime {
        switch self {
        case .none: .zero
        case .dissolve(let duration), .push(let duration, _), .slide(let duration, _), .wipe(let duration, _),
             .fadeThroughBlack(let duration), .zoom(let duration): duration
        }
    }

    /// Parses `dissolve:2`, `push:1.5`, `push-up:1`, `slide-right:1`, `wipe:1`, `fade:1`, `zoom:1`, `none`.
    /// - Parameter spec: The transition as a spec names it, its length in seconds after the colon.
    public init?(spec: String) {
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let kind = parts.first, !kind.isEmpty else { return nil }
        if kind == "none" {
            self = .none
            return
        }
        // Decimal seconds only: Double("0x10") would read a hexadecimal 16, Double("inf") infinity.
        let decimal = parts.count < 2 || parts[1].allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }
        let seconds = !decimal ? nil : parts.count > 1 ? Double(parts[1]) : 1
        guard let seconds, seconds > 0, seconds <= 60 else { return nil }
        let duration = MediaTime(seconds: seconds, preferredTimescale: 600)
        let words = kind.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let direction = words.count > 1 ? Direction(rawValue: words[1]) : .left
        guard let direction else { return nil }
        switch words[0] {
        case "none": self = .none
        case "dissolve" where words.count == 1: self = .dissolve(duration: duration)
        case "push": self = .push(duration: duration, direction: direction)
        case "slide": self = .slide(duration: duration, direction: direction)
        case "wipe": self = .wipe(duration: duration, direction: direction)
        case "fade" where words.count == 1: self = .fadeThroughBlack(duration: duration)
        case "zoom" where words.count == 1: self = .zoom(duration: duration)
        default: return nil
        }
    }
}
