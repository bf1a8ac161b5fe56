import Foundation
import ReelAsset
import ReelComposition
import ReelCore
import ReelPlayback
import ReelSDL

/// `reel play FILE|SPEC.json`: plays a file, or a composition spec without exporting it,
/// in a window (SDL2) with its sound (PulseAudio), answering keys as ffplay does.
struct PlayCommand: Command {
    let spec = CommandSpec(
        name: "play",
        abstract: "Play a file, or a composition spec without exporting it, in a window with sound.",
        usage: "FILE|SPEC.json [--rate R] [--start S] [--for S] [--loop] [--no-window] [--no-sound] [--audio DEVICE] [--stats] | --bench",
        positionals: 1...1,
        options: [
            .value("rate", "R", help: "The rate to play at, 0.5 to 2 (default 1); the pitch is kept."),
            .value("start", "S", help: "Start S seconds in (an exact seek)."),
            .value("for", "S", help: "Stop after S seconds of the item have played."),
            .flag("loop", help: "Play again from the start at the end (the 'l' key toggles it)."),
            .flag("no-window", help: "No window: sound alone, or a headless run of the clock."),
            .flag("no-sound", help: "No sound: the player runs by the host clock."),
            .value("audio", "DEVICE", help: "Where the sound goes: pulse, pulse:SINK, alsa, alsa:PCM or none "
                   + "(default: REEL_AUDIO_DEVICE, else PulseAudio, else ALSA's default PCM, else silent)."),
            .flag("stats", help: "At the end, print pictures shown and dropped, the first picture's delay and the CPU (JSON)."),
            .flag("bench", help: "Time the first picture after play() and seeks to a shown picture (run a release build)."),
        ],
        discussion: """
        Keys: space plays and pauses; left and right seek 5 s; comma and period step a frame
        (pausing); [ and ] change the rate by 0.25 (0.5 to 2); f fullscreen; l loop; q or Esc quits.
        The terminal shows the time, the rate and the frames dropped. The sound goes to the
        PulseAudio server, else to ALSA's default PCM, else the player runs silently by the
        host clock; --audio or REEL_AUDIO_DEVICE chooses (ALSA_CONFIG_PATH names another
        ALSA configuration). A spec plays with its transitions,
        overlays and mix, as `reel compose` would export it. Playing ends at the item's end.

        Example:
          reel play wedding.json --rate 1.5
        """)

    func run(_ arguments: ParsedArguments, console: Console) async throws -> Int32 {
        let path = arguments.positionals[0]
        let rate = try arguments.double("rate", in: 0.5...2) ?? 1
        let start = try arguments.double("start", in: 0...1e7) ?? 0
        let limit = try arguments.double("for", in: 0...1e7)
        var looping = arguments.flag("loop")
        let item = try Self.item(path)
        if let error = item.error { throw error }
        let shownSize = Self.shownSize(of: item)
        if arguments.flag("bench") {
            try PlayBench.run(makeItem: { () throws(ReelError) in try Self.item(path) }, size: shownSize, seeks: 40,
                              console: console)
            return 0
        }

        var device = AudioDevice.automatic
        if let spelling = arguments.value("audio") {
            device = try Self.audioDevice(spelling, subject: "--audio \(spelling.isEmpty ? "''" : spelling)")
        } else if let spelling = ProcessInfo.processInfo.environment["REEL_AUDIO_DEVICE"], !spelling.isEmpty {
            // The player reads the variable itself; a misspelt one would be passed over in silence.
            _ = try Self.audioDevice(spelling, subject: "REEL_AUDIO_DEVICE=\(spelling)")
        }
        let player = Player(playerItem: item, audioDevice: arguments.flag("no-sound") ? .none : device)
        if device != .automatic, device != .none, !player.outputsSound {
            throw ReelError(.deviceNotConnected, "cannot be opened", subject: "--audio \(arguments.value("audio") ?? "")")
        }
        let ended = PosixMutex(false)
        let token = NotificationCenter.default.addObserver(forName: PlayerItem.didPlayToEndTimeNotification, object: item,
                                                           queue: nil) { _ in ended.withLock { $0 = true } }
        defer { NotificationCenter.default.removeObserver(token) }

        var window: VideoWindow?
        let video = item.composition.tracks(withMediaType: .video).contains { !$0.segments.isEmpty }
        let frameDuration = item.videoComposition?.frameDuration ?? VideoComposition(propertiesOf: item.composition).frameDuration
        let output = PlayerItemVideoOutput(pixelBufferAttributes: .init(pixelFormat: .yuv420p, width: shownSize.width,
                                                                        height: shownSize.height))
        if !arguments.flag("no-window"), video {
            window = try VideoWindow(title: "reel play \(URL(fileURLWithPath: path).lastPathComponent)",
                                     width: shownSize.width, height: shownSize.height)
            item.add(output)
        }
        if start > 0 { player.seek(to: MediaTime(seconds: start, preferredTimescale: 90000)) }
        player.defaultRate = rate
        let started = Date()
        var firstShown: Double?
        var shownCount = 0
        var shown: Int64 = -1
        if let window {
            // Preroll (`preroll(atRate:)`): the first picture decoded and on screen before the
            // clock starts. Started at once, the clock ran on while the decoder opened, the
            // first picture came late and the second was already due to be passed over: the
            // one frame play-bench counted dropped on a 1080p30 file.
            let first = player.currentTime()
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                if output.hasNewPixelBuffer(forItemTime: first) {
                    var display = MediaTime.invalid
                    if let picture = output.copyPixelBuffer(forItemTime: first, itemTimeForDisplay: &display) {
                        try window.show(picture)
                        shownCount += 1
                        firstShown = Date().timeIntervalSince(started)
                        let ratio = display.seconds / frameDuration.seconds
                        if ratio.isFinite, abs(ratio) < 1e12 { shown = Int64(ratio.rounded()) }
                    }
                    break
                }
                if let error = item.error { throw error }
                usleep(1_000)
            }
        }
        player.play()

        let end = item.duration
        var dropped = 0
        // The first frame index of each drop (the first 20), for --stats: where the drops are.
        var droppedAt: [Int64] = []
        var lastStatus = Date.distantPast
        let stopAt = limit.map { MediaTime(seconds: start + $0, preferredTimescale: 90000) }
        playing: while true {
            for key in window?.pressedKeys() ?? [] {
                switch key {
                case .quit: break playing
                case .space: if player.rate == 0 { player.play() } else { player.pause() }
                case .left: player.seek(to: player.currentTime() - MediaTime(value: 5, timescale: 1))
                case .right: player.seek(to: player.currentTime() + MediaTime(value: 5, timescale: 1))
                case .comma, .period:
                    player.pause()
                    let step = key == .comma ? MediaTime.zero - frameDuration : frameDuration
                    player.seek(to: player.currentTime() + step)
                case .leftBracket, .rightBracket:
                    let changed = min(2, max(0.5, player.defaultRate + (key == .leftBracket ? -0.25 : 0.25)))
                    player.defaultRate = changed
                    if player.rate > 0 { player.rate = changed }
                case .fullscreen: window?.toggleFullscreen()
                case .loop: looping.toggle()
                }
            }
            if let window {
                let time = output.itemTime(forHostTime: player.clock.hostTime)
                if output.hasNewPixelBuffer(forItemTime: time) {
                    var display = MediaTime.invalid
                    if let picture = output.copyPixelBuffer(forItemTime: time, itemTimeForDisplay: &display) {
                        try window.show(picture)
                        shownCount += 1
                        if firstShown == nil { firstShown = Date().timeIntervalSince(started) }
                        // Frames skipped beyond the rate's own step count as dropped.
                        let ratio = display.seconds / frameDuration.seconds
                        if ratio.isFinite, abs(ratio) < 1e12 {
                            let index = Int64(ratio.rounded())
                            let step = Int64(max(1, player.rate.rounded()))
                            if shown >= 0, player.rate > 0, index > shown + step {
                                dropped += Int(index - shown - step)
                                if droppedAt.count < 20 { droppedAt.append(shown + step) }
                            }
                            shown = index
                        }
                    }
                }
                if let error = item.error { throw error }
            }
            let now = player.currentTime()
            if Date().timeIntervalSince(lastStatus) > 0.25 {
                lastStatus = Date()
                console.writeError(String(format: "\r%9.3f / %.3f s  rate %.2f  dropped %d ", now.seconds, end.seconds,
                                          player.rate, dropped))
            }
            if let stopAt, now >= stopAt { break }
            if ended.withLock({ $0 }) {
                guard looping else { break }
                ended.withLock { $0 = false }
                player.seek(to: .zero)
                player.play()
            }
            usleep(window == nil ? 10_000 : 2_000)
        }
        player.pause()
        console.writeError(String(format: "\r%9.3f / %.3f s  rate %.2f  dropped %d\n", player.currentTime().seconds, end.seconds,
                                  player.rate, dropped))
        if arguments.flag("stats") {
            // For `make bench`: what a viewer saw, and what it cost the whole process.
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            let wall = Date().timeIntervalSince(started)
            console.print("{\"shown\": \(shownCount), \"dropped\": \(dropped), "
                          + "\"firstPictureMilliseconds\": \(firstShown.map { Format.number($0 * 1000) } ?? "null"), "
                          + "\"cpuSeconds\": \(Format.number(cpu)), \"wallSeconds\": \(Format.number(wall)), "
                          + "\"cores\": \(Format.number(cpu / max(wall, 0.001))), "
                          + "\"audio\": \(player.audioOutputDeviceUniqueID.map { "\"\($0)\"" } ?? "null"), "
                          + "\"underruns\": \(player.soundUnderruns), "
                          + "\"droppedAt\": [\(droppedAt.map(String.init).joined(separator: ", "))]}")
        }
        return 0
    }

    /// The pictures' size: the render size, at most 1920x1080 keeping the aspect (a window
    /// shows no more, and a hostile file's huge render size is never allocated).
    static func shownSize(of item: PlayerItem) -> (width: Int, height: Int) {
        let size = item.videoComposition?.renderSize ?? VideoComposition(propertiesOf: item.composition).renderSize
        let fit = size.width.isFinite && size.height.isFinite && size.width >= 1 && size.height >= 1
            ? min(1, 1920 / size.width, 1080 / size.height) : 0
        return fit > 0 ? (width: max(16, Int((size.width * fit / 2).rounded()) * 2),
                          height: max(16, Int((size.height * fit / 2).rounded()) * 2)) : (width: 640, height: 360)
    }

    /// A file's item, or a spec's composition with its video composition and mix.
    /// The device a spelling names, or one line saying what the spellings are: an empty or
    /// blank `--audio` names none (it is not "automatic": leave the option out for that).
    static func audioDevice(_ spelling: String, subject: String) throws(ReelError) -> AudioDevice {
        guard !spelling.trimmingCharacters(in: .whitespaces).isEmpty, let device = AudioDevice(spelling: spelling) else {
            throw ReelError(.invalidArgument, "an audio device is auto, pulse, pulse:SINK, alsa, alsa:PCM or none",
                            subject: subject)
        }
        return device
    }

    static func item(_ path: String) throws(ReelError) -> PlayerItem {
        let url = URL(fileURLWithPath: path)
        guard url.pathExtension.lowercased() == "json" else {
            return PlayerItem(asset: try Asset(url: url))
        }
        let description = try CompositionSpec(contentsOf: url)
        let built: BuiltComposition
        do throws(ReelError) {
            built = try description.build(relativeTo: url.deletingLastPathComponent())
        } catch {
            throw ReelError(error.code, error.message, subject: "\(url.path): \(error.subject ?? "spec")")
        }
        return PlayerItem(composition: built.composition, videoComposition: built.videoComposition, audioMix: built.audioMix)
    }
}
