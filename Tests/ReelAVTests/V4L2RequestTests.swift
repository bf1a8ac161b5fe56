import CV4L2
@testable import ReelAV
import Testing

/// The `VIDIOC_*` request numbers CV4L2's shims give, against the raw values of the
/// kernel's ABI: `_IOR`/`_IOWR('V', n, struct)` on Linux, the same on x86-64 and arm64.
/// A wrong struct size in the shim's header would change them and every ioctl would fail.
@Suite struct V4L2RequestTests {
    @Test func requestNumbersAreTheKernelsRawValues() {
        let raw: [V4L2Request: UInt] = [
            .queryCapability: 0x8068_5600, // _IOR('V', 0, struct v4l2_capability), 104 bytes
            .enumerateFormat: 0xc040_5602, // _IOWR('V', 2, struct v4l2_fmtdesc), 64 bytes
            .getParameters: 0xc0cc_5615, // _IOWR('V', 21, struct v4l2_streamparm), 204 bytes
            .setParameters: 0xc0cc_5616, // _IOWR('V', 22, struct v4l2_streamparm)
            .getControl: 0xc008_561b, // _IOWR('V', 27, struct v4l2_control), 8 bytes
            .setControl: 0xc008_561c, // _IOWR('V', 28, struct v4l2_control)
            .queryControl: 0xc044_5624, // _IOWR('V', 36, struct v4l2_queryctrl), 68 bytes
            .enumerateFrameSizes: 0xc02c_564a, // _IOWR('V', 74, struct v4l2_frmsizeenum), 44 bytes
            .enumerateFrameIntervals: 0xc034_564b, // _IOWR('V', 75, struct v4l2_frmivalenum), 52 bytes
        ]
        #expect(raw.count == V4L2Request.allCases.count)
        for request in V4L2Request.allCases {
            #expect(request.number == raw[request], "\(request.name): 0x\(String(request.number, radix: 16))")
        }
        // The structs Swift imports are the sizes the numbers encode.
        #expect(MemoryLayout<v4l2_capability>.size == 104 && MemoryLayout<v4l2_streamparm>.size == 204)
        #expect(MemoryLayout<v4l2_queryctrl>.size == 68 && MemoryLayout<v4l2_frmivalenum>.size == 52)
    }

    @Test func theKernelDriverIsTheDefaultAndReportsMissingNodes() {
        #expect(V4L2.driver is KernelV4L2)
        let driver = KernelV4L2()
        #expect(driver.nodePaths().allSatisfy { $0.hasPrefix("/dev/video") })
        guard case .failure(let failure) = driver.open("/dev/video-reel-absent") else {
            Issue.record("an absent node opened")
            return
        }
        let error = V4L2.error(failure.value, operation: "open", device: "v4l2:/dev/video-reel-absent")
        #expect(error.code == .fileNotFound && error.description.hasPrefix("v4l2:/dev/video-reel-absent: "))
    }
}
