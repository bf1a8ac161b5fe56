import Foundation

/// Where a ``Player``'s sound goes. Without a sound device the player runs by the host
/// clock, silently, so it always plays.
public enum AudioDevice: Sendable, Hashable {
    /// What `REEL_AUDIO_DEVICE` names (``init(environment:)``); unset: the PulseAudio server
    /// (`PULSE_SERVER`, else the user's), else ALSA's `default` PCM, else silent.
    case automatic
    /// A PulseAudio server by its address (`unix:/path/to/native`; nil for the usual one) and
    /// a sink by its name (nil for the server's default); silent when it cannot be reached.
    case pulseAudio(server: String?, sink: String?)
    /// An ALSA PCM by name (`default`, `hw:0,0`, `plughw:1`, one of the ALSA configuration's;
    /// `ALSA_CONFIG_PATH` names another configuration); silent when it cannot be opened.
    case alsa(device: String)
    /// No sound: the player runs by the host clock.
    case none

    /// The device a spelling names: `pulse`, `pulse:SINK`, `alsa`, `alsa:PCM`, `none` (or
    /// `auto`, or nothing: ``automatic``). `REEL_AUDIO_DEVICE` and `reel play --audio` use it.
    /// - Parameter spelling: The text.
    /// - Returns: The device, or nil for a spelling that names none.
    public init?(spelling: String) {
        let text = spelling.trimmingCharacters(in: .whitespaces)
        let (kind, name) = text.firstIndex(of: ":").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) }
            ?? (text, "")
        switch kind.lowercased() {
        case "", "auto", "automatic": self = .automatic
        case "none", "silent": self = .none
        case "pulse", "pulseaudio": self = .pulseAudio(server: nil, sink: name.isEmpty ? nil : name)
        case "alsa": self = .alsa(device: name.isEmpty ? "default" : name)
        default: return nil
        }
    }

    /// What ``automatic`` means here: `REEL_AUDIO_DEVICE`'s device when it is set (and
    /// spelled right), else nil: PulseAudio, then ALSA, then silence.
    static func fromEnvironment() -> AudioDevice? {
        guard let text = getenv("REEL_AUDIO_DEVICE").map({ String(cString: $0) }), !text.isEmpty,
              let device = AudioDevice(spelling: text), device != .automatic else { return nil }
        return device
    }
}
