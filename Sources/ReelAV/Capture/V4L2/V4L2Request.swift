import CV4L2

/// The V4L2 ioctls Reel makes, with their request numbers (videodev2.h's `VIDIOC_*`
/// macros, which Swift cannot import, through CV4L2's shims).
package enum V4L2Request: CaseIterable, Sendable {
    case queryCapability, enumerateFormat, enumerateFrameSizes, enumerateFrameIntervals
    case queryControl, getControl, setControl, getParameters, setParameters

    /// The request number, as the kernel's headers define it.
    package var number: UInt {
        switch self {
        case .queryCapability: reel_vidioc_querycap()
        case .enumerateFormat: reel_vidioc_enum_fmt()
        case .enumerateFrameSizes: reel_vidioc_enum_framesizes()
        case .enumerateFrameIntervals: reel_vidioc_enum_frameintervals()
        case .queryControl: reel_vidioc_queryctrl()
        case .getControl: reel_vidioc_g_ctrl()
        case .setControl: reel_vidioc_s_ctrl()
        case .getParameters: reel_vidioc_g_parm()
        case .setParameters: reel_vidioc_s_parm()
        }
    }

    /// The C name, for errors.
    package var name: String {
        switch self {
        case .queryCapability: "VIDIOC_QUERYCAP"
        case .enumerateFormat: "VIDIOC_ENUM_FMT"
        case .enumerateFrameSizes: "VIDIOC_ENUM_FRAMESIZES"
        case .enumerateFrameIntervals: "VIDIOC_ENUM_FRAMEINTERVALS"
        case .queryControl: "VIDIOC_QUERYCTRL"
        case .getControl: "VIDIOC_G_CTRL"
        case .setControl: "VIDIOC_S_CTRL"
        case .getParameters: "VIDIOC_G_PARM"
        case .setParameters: "VIDIOC_S_PARM"
        }
    }
}
