import Foundation
import UCubeLink

/// What `ucube diagnose` learns about the Bluetooth side of a link before it tries to open it: whether the system bus
/// answers, BlueZ runs, the adapter is there and powered, this user may use it, and whether the terminal already has
/// a connection that no process of ours holds (left by a process that crashed mid-connection). Every call is bounded
/// by `timeout`; nothing here connects to the terminal or changes the adapter.
package struct BluetoothDiagnosis: Sendable {
    /// One step of the check, in order; the first that fails ends the list (the next ones cannot run).
    package struct Step: Sendable, Equatable {
        package enum Name: String, Sendable {
            case bus, bluez, adapter, permission
            /// The terminal as BlueZ knows it (not the `device` check of the address).
            case device = "bluetooth-device"
        }

        /// Why a step failed; `nil` for a step that passed.
        package enum Problem: String, Sendable {
            /// No D-Bus system bus (no dbus-daemon, or a wrong DBUS_SYSTEM_BUS_ADDRESS).
            case busUnavailable = "dbus-unavailable"
            /// No org.bluez on the bus: bluetoothd is not running.
            case bluezNotRunning = "bluez-not-running"
            /// The bus or BlueZ refused a call: this user may not use Bluetooth (D-Bus policy, polkit).
            case permissionDenied = "bluetooth-permission-denied"
            /// BlueZ lists no adapter (or not the one $UCUBE_BT_ADAPTER names).
            case noAdapter = "bluetooth-no-adapter"
            /// The adapter is powered off (or soft-blocked).
            case adapterOff = "bluetooth-adapter-off"
            /// BlueZ already has a connection to the terminal, or one in progress, that no ucube process holds.
            case connectionPending = "bluetooth-connection-pending"
        }

        package let name: Name
        package let problem: Problem?
        /// What was found, one sentence.
        package let message: String
        /// What to do about a problem.
        package let hint: String?
        /// Facts for `--json` (adapter path, device address, …).
        package let details: [String: String]

        init(_ name: Name, _ problem: Problem?, _ message: String, hint: String? = nil, details: [String: String] = [:])
        {
            self.name = name
            self.problem = problem
            self.message = message
            self.hint = hint
            self.details = details
        }
    }

    package let steps: [Step]

    /// D-Bus error names that mean "not allowed": the bus daemon's policy, BlueZ's own authorization.
    static let permissionErrors: Set<String> = [
        "org.freedesktop.DBus.Error.AccessDenied", "org.freedesktop.DBus.Error.AuthFailed",
        "org.bluez.Error.NotAuthorized", "org.freedesktop.PolicyKit1.Error.NotAuthorized",
    ]

    /// D-Bus error names that mean "no such service on the bus".
    static let absentErrors: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
    ]

    /// Checks the Bluetooth side for the terminal `target` (`AA:BB:…` or an advertised name).
    package static func run(target: String, timeout: Duration = .seconds(5)) async -> BluetoothDiagnosis {
        var steps: [Step] = []
        let bus: DBusBus
        do {
            bus = try await DBusBus.system(matchRules: [])
        } catch {
            steps.append(
                Step(
                    .bus, .busUnavailable, "the D-Bus system bus cannot be reached: \(error.message)",
                    hint: "start dbus (systemctl start dbus), or check DBUS_SYSTEM_BUS_ADDRESS"))
            return BluetoothDiagnosis(steps: steps)
        }
        defer { bus.close() }
        steps.append(Step(.bus, nil, "the D-Bus system bus answers"))
        let bluez = BlueZ(bus: bus)

        let tree: BlueZ.ObjectTree
        do {
            tree = BlueZ.objectTree(
                fromReply: try await bluez.call("/", BlueZ.objectManager, "GetManagedObjects", timeout: timeout))
        } catch {
            if absentErrors.contains(error.name) {
                steps.append(
                    Step(
                        .bluez, .bluezNotRunning, "BlueZ is not running: no org.bluez on the system bus",
                        hint: "start it: sudo systemctl start bluetooth (and check `systemctl status bluetooth`)"))
            } else if permissionErrors.contains(error.name) {
                steps.append(Step(.bluez, nil, "BlueZ is running"))
                steps.append(permissionStep("listing BlueZ's objects", error))
            } else {
                steps.append(
                    Step(
                        .bluez, .bluezNotRunning, "BlueZ does not answer: \(error)",
                        hint: "restart it: sudo systemctl restart bluetooth"))
            }
            return BluetoothDiagnosis(steps: steps)
        }
        steps.append(Step(.bluez, nil, "BlueZ is running"))

        let adapter: String
        do {
            adapter = try bluez.adapterPath(in: tree)
        } catch {
            steps.append(
                Step(
                    .adapter, .noAdapter, error.reason,
                    hint:
                        "plug in or unblock the controller (rfkill unblock bluetooth), or set \(BluetoothChoices.adapterEnvironmentVariable) to an adapter BlueZ lists"
                ))
            return BluetoothDiagnosis(steps: steps)
        }
        let adapterName = adapter.split(separator: "/").last.map(String.init) ?? adapter
        let adapterProperties = tree[adapter]?[BlueZ.adapterInterface] ?? [:]
        var adapterDetails = ["adapter": adapterName]
        if let address = adapterProperties["Address"]?.string { adapterDetails["adapterAddress"] = address }
        guard adapterProperties["Powered"]?.bool != false else {
            steps.append(
                Step(
                    .adapter, .adapterOff, "the Bluetooth adapter \(adapterName) is powered off",
                    hint: "bluetoothctl power on (and `rfkill unblock bluetooth` if it is blocked)",
                    details: adapterDetails))
            return BluetoothDiagnosis(steps: steps)
        }
        steps.append(Step(.adapter, nil, "adapter \(adapterName) is powered", details: adapterDetails))

        // A harmless call that BlueZ authorizes as it does a scan or a connection: SetDiscoveryFilter with no filter
        // (per D-Bus client, dropped when this connection closes). Only a refusal counts; any other answer passes.
        do {
            _ = try await bluez.call(
                adapter, BlueZ.adapterInterface, "SetDiscoveryFilter", [.options([])], timeout: timeout)
            steps.append(Step(.permission, nil, "this user may use the adapter"))
        } catch {
            if permissionErrors.contains(error.name) {
                steps.append(permissionStep("a call to the adapter \(adapterName)", error))
                return BluetoothDiagnosis(steps: steps)
            }
            steps.append(Step(.permission, nil, "this user may use the adapter"))
        }

        guard let device = DiscoveredDevice.all(in: tree, adapter: adapter).first(where: { $0.matches(target) }) else {
            steps.append(
                Step(
                    .device, nil, "BlueZ does not know '\(target)' yet: opening the link scans for it",
                    details: ["target": target]))
            return BluetoothDiagnosis(steps: steps)
        }
        var details = ["address": device.address]
        if let name = device.name { details["name"] = name }
        if device.connected {
            steps.append(
                Step(
                    .device, .connectionPending,
                    "BlueZ already has a connection to \(device.address) that no ucube process holds (left by a process that ended mid-connection?)",
                    hint: "bluetoothctl disconnect \(device.address), or switch the terminal off and on",
                    details: details))
        } else {
            steps.append(Step(.device, nil, "\(device.address) is known to BlueZ and not connected", details: details))
        }
        return BluetoothDiagnosis(steps: steps)
    }

    private static func permissionStep(_ what: String, _ error: DBusCallError) -> Step {
        Step(
            .permission, .permissionDenied, "Bluetooth is refused to this user: \(what) failed with \(error)",
            hint:
                "add the user to the bluetooth group (sudo usermod -aG bluetooth $USER, then log in again), or check the D-Bus policy in /etc/dbus-1/system.d/bluetooth.conf"
        )
    }

    /// Classifies a link failure's text (BLETransport's reasons carry the D-Bus error name): a refused Connect is a
    /// permission problem, a Connect already in progress a pending connection.
    package static func problem(inLinkFailure text: String) -> Step.Problem? {
        if permissionErrors.contains(where: { text.contains($0) }) { return .permissionDenied }
        if text.contains("org.bluez.Error.InProgress") { return .connectionPending }
        if text.contains("org.bluez.Error.NotReady") { return .adapterOff }
        return nil
    }
}
