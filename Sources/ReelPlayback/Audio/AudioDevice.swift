/// Where a ``Player``'s sound goes. Without a sound device the player runs by the host
/// clock, silently, so it always plays.
public enum AudioDevice: Sendable, Hashable {
    /// The PulseAudio server that `PULSE_SERVER` names, else the user's; silent when there is none.
    case automatic
    /// A PulseAudio server by its address (`unix:/path/to/native`; nil for the usual one) and
    /// a sink by its name (nil for the server's default); silent when it cannot be reached.
    case pulseAudio(server: String?, sink: String?)
    /// No sound: the player runs by the host clock.
    case none
}
