import Foundation

/// Shows how far a long job is: a redrawn bar on a terminal, JSON lines for scripts,
/// or nothing when stderr is a file.
final class ProgressReporter {
    enum Style { case bar, json, silent }

    private let console: Console
    private let style: Style
    private let total: Double
    private let started = Date()
    private var lastDraw = Date.distantPast
    private let label: String

    init(console: Console, json: Bool, total: Double, label: String) {
        self.console = console
        style = json ? .json : (console.errorIsTerminal ? .bar : .silent)
        self.total = total
        self.label = label
    }

    /// Reports that media up to `done` seconds of `total` is processed. Draws at most 10 times a second.
    func update(_ done: Double, force: Bool = false) {
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(started), 1e-6)
        let fraction = total > 0 ? min(max(done / total, 0), 1) : 0
        let speed = done / elapsed
        let remaining = speed > 0 ? max(total - done, 0) / speed : 0
        switch style {
        case .silent:
            break
        case .json:
            console.print(String(format: #"{"progress":%.4f,"time":%.3f,"duration":%.3f,"speed":%.2f,"eta":%.1f}"#,
                                 fraction, done, total, speed, remaining))
        case .bar:
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let left = String(Format.timecode(remaining).prefix(8))
            let line = "\r\(label) \(bar) " + String(format: "%3.0f%%  %.1fx  ", fraction * 100, speed) + "\(left) left "
            console.writeError(line)
        }
    }

    /// Ends the bar's line.
    func finish() {
        update(total, force: true)
        if style == .bar { console.writeError("\n") }
    }
}
