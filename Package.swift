// swift-tools-version: 6.0
import Foundation
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The filter kernels' SIMD lanes are 8 wide on AVX2, 4 on the x86-64 baseline (SSE2), and
/// Swift cannot pick per function at run time: so ReelFilters is built for the machine that
/// builds it when that machine has AVX2 (as this package is always built where it runs).
/// REEL_PORTABLE=1 builds it for any x86-64. REEL_FMA tells the kernels the build has fused
/// multiply-adds (without the instruction, a fused one is a library call per lane).
let nativeKernels: [SwiftSetting] = {
    #if os(Linux) && arch(x86_64)
    guard ProcessInfo.processInfo.environment["REEL_PORTABLE"] == nil,
          let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
          let flags = cpu.split(separator: "\n").first(where: { $0.hasPrefix("flags") })?.split(separator: " "),
          ["avx2", "fma", "bmi2", "movbe", "f16c"].allSatisfy({ flags.contains(Substring($0)) })
    else { return [] }
    return [.unsafeFlags(["-target-cpu", "haswell"]), .define("REEL_FMA")]
    #else
    return []
    #endif
}()

let package = Package(
    name: "Reel",
    products: [
        .library(name: "Reel", targets: ["ReelCore", "ReelAsset", "ReelFilters", "ReelComposition", "ReelCapture", "ReelPlayback"]),
        .executable(name: "reel", targets: ["reel"]),
    ],
    targets: [
        // C tier: FFmpeg's headers plus shims for what Swift cannot import.
        .systemLibrary(
            name: "CFFmpeg",
            path: "Sources/CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev",
                              "libswresample-dev", "libavfilter-dev", "libavdevice-dev"])]
        ),

        .target(name: "CFFmpegShims", dependencies: ["CFFmpeg"]),
        // The V4L2 kernel interface: videodev2.h's structs, its request numbers and ioctl.
        .target(name: "CV4L2"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CMicroHTTPDShims", dependencies: ["CMicroHTTPD"]),
        .systemLibrary(name: "CPulse", path: "Sources/CPulse", pkgConfig: "libpulse-simple", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CALSA", path: "Sources/CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .target(name: "CALSAShims", dependencies: ["CALSA"]),
        .systemLibrary(name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "fontconfig",
                       providers: [.apt(["libfreetype-dev", "libfontconfig-dev"])]),
        .systemLibrary(name: "CSDL2", path: "Sources/CSDL2", pkgConfig: "sdl2", providers: [.apt(["libsdl2-dev"])]),

        // Core tier: pure Swift value types and containers.
        .target(name: "ReelCore", swiftSettings: strict),

        // Owner tier: the only module that touches FFmpeg's pointers and V4L2's structs.
        .target(name: "ReelAV", dependencies: ["ReelCore", "CFFmpeg", "CFFmpegShims", "CV4L2", "CFreeType"], swiftSettings: strict),

        // Owner of libmicrohttpd's pointers: the studio's HTTP server, kept apart from
        // ReelAV (FFmpeg's owner) since nothing in it is media.
        .target(name: "ReelHTTP", dependencies: ["ReelCore", "CMicroHTTPD", "CMicroHTTPDShims"], swiftSettings: strict),

        // Owner of libpulse's pointers: a player's sound output.
        .target(name: "ReelPulse", dependencies: ["ReelCore", "CPulse"], swiftSettings: strict),
        // Owner of libasound's pointers: a player's sound where there is no PulseAudio server.
        .target(name: "ReelALSA", dependencies: ["ReelCore", "CALSA", "CALSAShims"], swiftSettings: strict),
        // Owner of SDL2's pointers: `reel play`'s window.
        .target(name: "ReelSDL", dependencies: ["ReelCore", "CSDL2"], swiftSettings: strict),

        // Public tier: AVFoundation-shaped modules.
        .target(name: "ReelAsset", dependencies: ["ReelCore", "ReelAV"], swiftSettings: strict),
        .target(name: "ReelComposition", dependencies: ["ReelCore", "ReelAV", "ReelAsset", "ReelFilters"], swiftSettings: strict),
        .target(name: "ReelCapture", dependencies: ["ReelCore", "ReelAV", "ReelAsset", "ReelFilters", "ReelComposition"], swiftSettings: strict),
        .target(name: "ReelFilters", dependencies: ["ReelCore", "ReelAV", "ReelAsset"], swiftSettings: strict + nativeKernels),
        // Playback above the composition layer: AVPlayer, AVPlayerItem, AVPlayerItemVideoOutput.
        .target(name: "ReelPlayback", dependencies: ["ReelCore", "ReelAV", "ReelAsset", "ReelComposition", "ReelPulse", "ReelALSA"],
                swiftSettings: strict),

        // Apps.
        .target(name: "ReelCLI", dependencies: ["ReelCore", "ReelAsset", "ReelFilters", "ReelComposition", "ReelCapture",
                                                "ReelStudio", "ReelPlayback", "ReelSDL"],
                swiftSettings: strict),
        // The pages are real files in Sources/ReelStudio/Resources, compiled into the binary.
        .target(name: "ReelStudio", dependencies: ["ReelCore", "ReelAsset", "ReelFilters", "ReelComposition", "ReelCapture",
                                                   "ReelHTTP"],
                resources: ["page.html", "camera.html", "gallery.html", "compose.html", "studio.css", "studio.js", "camera.js",
                            "gallery.js", "compose.js", "favicon.svg"].map { .embedInCode("Resources/\($0)") },
                swiftSettings: strict),
        .executableTarget(name: "reel", dependencies: ["ReelCLI"], swiftSettings: strict),
        // The seed app's CompositionViewController, ported call by call.
        .executableTarget(name: "SeedComposition", dependencies: ["ReelAsset", "ReelComposition", "ReelCore"],
                          path: "Examples/SeedComposition", swiftSettings: strict),
        // The seeds' capture and editing code, ported call by call (issue 15); ExamplesTests runs them.
        .executableTarget(name: "SeedCapture", dependencies: ["ReelCapture", "ReelAsset", "ReelCore"],
                          path: "Examples/SeedCapture", swiftSettings: strict),
        .executableTarget(name: "SeedRecording", dependencies: ["ReelCapture", "ReelAsset", "ReelComposition", "ReelCore"],
                          path: "Examples/SeedRecording", swiftSettings: strict),
        .executableTarget(name: "SeedSpeedMerge", dependencies: ["ReelAsset", "ReelComposition", "ReelCore"],
                          path: "Examples/SeedSpeedMerge", swiftSettings: strict),
        .executableTarget(name: "SeedPermissions", dependencies: ["ReelCapture", "ReelAsset", "ReelCore"],
                          path: "Examples/SeedPermissions", swiftSettings: strict),
        // Seed 002's review of its merged recording (AVPlayer), with looping.
        .executableTarget(name: "SeedReview", dependencies: ["ReelAsset", "ReelComposition", "ReelCore", "ReelPlayback"],
                          path: "Examples/SeedReview", swiftSettings: strict),

        // Tests: helpers shared by the suites, then one suite per module.
        .target(name: "ReelTestSupport", dependencies: ["ReelCore", "ReelAsset"], path: "Tests/ReelTestSupport",
                swiftSettings: strict),
        // The sync suite's clip maker and judge for `make bench` (the tests call the same code in-process).
        .executableTarget(name: "reel-sync-meter", dependencies: ["ReelTestSupport", "ReelComposition"], path: "Tests/SyncMeter",
                          swiftSettings: strict),
        .testTarget(name: "ReelCoreTests", dependencies: ["ReelCore"], swiftSettings: strict),
        .testTarget(name: "ReelAVTests", dependencies: ["ReelAV", "CFFmpeg", "CFFmpegShims", "CV4L2", "ReelTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ReelAssetTests", dependencies: ["ReelAsset", "ReelTestSupport"], swiftSettings: strict),
        .testTarget(name: "ReelFiltersTests", dependencies: ["ReelFilters", "ReelTestSupport"], swiftSettings: strict),
        .testTarget(name: "ReelCompositionTests", dependencies: ["ReelComposition", "ReelTestSupport", "reel"],
                    swiftSettings: strict),
        .testTarget(name: "ReelPlaybackTests", dependencies: ["ReelPlayback", "ReelComposition", "ReelAsset", "ReelTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ReelCaptureTests", dependencies: ["ReelCapture", "ReelAV", "CV4L2", "ReelTestSupport"], swiftSettings: strict),
        .testTarget(name: "ReelStudioTests", dependencies: ["ReelStudio", "ReelHTTP", "CMicroHTTPD", "CMicroHTTPDShims",
                                                            "reel", "ReelTestSupport"], swiftSettings: strict),
        .testTarget(name: "ReelCLITests", dependencies: ["ReelCLI", "reel", "ReelTestSupport"], swiftSettings: strict),
        // The seed ports in Examples/, run and their outputs checked as the seeds' authors would.
        .testTarget(name: "ExamplesTests",
                    dependencies: ["SeedComposition", "SeedCapture", "SeedRecording", "SeedSpeedMerge", "SeedPermissions",
                                   "ReelTestSupport", "ReelCore"],
                    swiftSettings: strict),
        // Bad input, crash safety and full disks, through the built `reel`.
        .testTarget(name: "ReelReliabilityTests",
                    dependencies: ["reel", "ReelTestSupport", "ReelCore", "ReelAsset", "ReelFilters", "ReelComposition",
                                   "ReelCapture"],
                    swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/), added only when REEL_FUZZ is set: they link only with
// -sanitize=fuzzer, which supplies their main. `make fuzz` builds and runs them.
if Context.environment["REEL_FUZZ"] != nil {
    let fuzz = strict + [.unsafeFlags(["-parse-as-library"])] // no main of their own: libFuzzer's runs
    package.targets += [
        .executableTarget(name: "FuzzCubeLUT", dependencies: ["ReelCore", "ReelFilters"], path: "Fuzz/FuzzCubeLUT",
                          swiftSettings: fuzz),
        .executableTarget(name: "FuzzCompositionSpec", dependencies: ["ReelCore", "ReelComposition"],
                          path: "Fuzz/FuzzCompositionSpec", swiftSettings: fuzz),
        .executableTarget(name: "FuzzAsset", dependencies: ["ReelCore", "ReelAsset"], path: "Fuzz/FuzzAsset",
                          swiftSettings: fuzz),
    ]
}
