import Foundation

/// The sound of `virtual:microphone`: silence with a 10 ms 1 kHz click at every whole
/// second, where the virtual camera flashes.
enum VirtualMicrophone {
    static let sampleRate = 48000

    /// `count` mono samples starting at sample `start` of the session.
    static func samples(start: Int64, count: Int) -> [Float] {
        (0..<count).map { i in
            let inSecond = (start + Int64(i)) % Int64(sampleRate)
            guard inSecond < 480 else { return 0 }
            return 0.8 * Float(sin(2 * Double.pi * 1000 * Double(inSecond) / Double(sampleRate)))
        }
    }
}
