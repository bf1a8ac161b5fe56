import Foundation

/// Keys from the terminal one at a time: raw mode while reading a terminal (restored on
/// exit), or plain bytes from a pipe, so that scripts and tests can drive the same keys.
final class Terminal: @unchecked Sendable {
    private var saved = termios()
    private let raw: Bool

    init() {
        raw = isatty(STDIN_FILENO) != 0
        guard raw else { return }
        tcgetattr(STDIN_FILENO, &saved)
        var settings = saved
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutablePointer(to: &settings.c_cc) { pointer in
            pointer.withMemoryRebound(to: cc_t.self, capacity: Int(NCCS)) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// Whether keys come from a terminal (a person), not a pipe or a file.
    var isInteractive: Bool { raw }

    /// Puts the terminal back as it was.
    func restore() {
        guard raw else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    /// The next key, or nil at the end of input. Blocks.
    func readKey() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }
}
