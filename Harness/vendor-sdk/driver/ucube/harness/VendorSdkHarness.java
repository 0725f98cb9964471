package ucube.harness;

import android.content.Context;
import com.youTransactor.uCube.ITaskCancelListener;
import com.youTransactor.uCube.ITaskMonitor;
import com.youTransactor.uCube.TaskEvent;
import com.youTransactor.uCube.api.UCubeAPI;
import com.youTransactor.uCube.api.UCubeLibMDMServiceListener;
import com.youTransactor.uCube.api.UCubeLibPaymentServiceListener;
import com.youTransactor.uCube.api.UCubePaymentRequest;
import com.youTransactor.uCube.api.YTMPOSProduct;
import com.youTransactor.uCube.connexion.ConnectionListener;
import com.youTransactor.uCube.connexion.ConnectionService;
import com.youTransactor.uCube.connexion.ConnectionStatus;
import com.youTransactor.uCube.connexion.UCubeDevice;
import com.youTransactor.uCube.mdm.MDMServices;
import com.youTransactor.uCube.mdm.ServiceState;
import com.youTransactor.uCube.payment.PaymentContext;
import com.youTransactor.uCube.payment.PaymentService;
import com.youTransactor.uCube.payment.PaymentState;
import com.youTransactor.uCube.payment.task.IAuthorizationTask;
import com.youTransactor.uCube.rpc.CardReaderType;
import com.youTransactor.uCube.rpc.Constants;
import com.youTransactor.uCube.rpc.DeviceInfos;
import com.youTransactor.uCube.rpc.RPCCommand;
import com.youTransactor.uCube.rpc.TransactionType;
import com.youTransactor.uCube.rpc.command.GetInfosCommand;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * ucube's driver for the vendor's unmodified Android SDK on a desktop JVM: one flow per run, against `ucube simulate
 * --vendor-app` (and its TMS simulator for the MDM flows). It calls the SDK's public API the way the vendor's sample
 * app does (docs/protocol.md §3.4, §8.4, §10: init, SOCKET connection, GetInfosCommand, UCubeAPI.pay, UCubeAPI.mdm*) and prints one
 * line, `RESULT PASS|FAIL <what the SDK itself reported>`; the exit status is 0 for PASS.
 *
 * Usage: VendorSdkHarness FLOW HOST:PORT [TMS-SERVER] [WORK-DIR]. Written for ucube; it contains no vendor code.
 */
public final class VendorSdkHarness {
    /** How long one step may take before the flow is reported as hanging. */
    private static final long STEP_SECONDS = 60;

    /** The GetInfo tags of the sample app's "get info" button, by the names of the SDK's own constants. */
    private static final String[] SAMPLE_INFO_TAGS = {
        "TAG_SECURE_MOD", "TAG_CB", "TAG_TERMINAL_PN", "TAG_TERMINAL_SN", "TAG_FIRMWARE_VERSION",
        "TAG_EMV_ICC_CONFIG_VERSION", "TAG_EMV_NFC_CONFIG_VERSION", "TAG_TERMINAL_STATE", "TAG_BATTERY_STATE",
        "TAG_POWER_OFF_TIMEOUT", "TAG_CONFIGURATION_MERCHANT_INTERFACE_LOCALE", "TAG_SUPPORTED_LOCALE_LIST",
        "TAG_EMVL1_CLESS_LIB_VERSION", "TAG_USB_CAPABILITY", "TAG_OS_VERSION", "TAG_MPOS_MODULE_STATE",
        "TAG_TST_LOOPBACK_VERSION", "TAG_AGNOS_LIB_VERSION", "TAG_ACE_LAYER_VERSION", "TAG_GPI_VERSION",
        "TAG_EMVL3_VERSION", "TAG_PCI_PED_VERSION", "TAG_PCI_PED_CHECKSUM", "TAG_EMV_L1_CHECKSUM",
        "TAG_BOOT_LOADER_CHECKSUM", "TAG_EMV_L2_CHECKSUM", "TAG_BLE_FIRMWARE_VERSION", "TAG_RESOURCE_FILE_VERSION",
        "TAG_FB_CHARGING_STATUS", "TAG_FC_SPEED_MODE", "TAG_F3_BUILD_CONFIGURATION",
        "TAG_FD_NON_SECURE_FIRMWARE_VERSION", "TAG_E7_NFC_CARD_DETECT_CONFIGURATION",
        "TAG_CF_ENHANCED_SRED_CONFIGURATION", "TAG_FULL_SVPP_IDENTIFICATION",
    };

    private final String address;
    private final String tmsServer;
    private final Context context;

    private VendorSdkHarness(String address, String tmsServer, File workDirectory) {
        this.address = address;
        this.tmsServer = tmsServer;
        this.context = new Context(workDirectory);
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.out.println("RESULT FAIL usage: VendorSdkHarness FLOW HOST:PORT [TMS-SERVER] [WORK-DIR]");
            System.exit(2);
        }
        String flow = args[0];
        File work = args.length > 3 ? new File(args[3]) : Files.createTempDirectory("ucube-harness").toFile();
        VendorSdkHarness harness = new VendorSdkHarness(args[1], args.length > 2 ? args[2] : "", work);
        String result;
        boolean passed;
        try {
            result = harness.run(flow);
            passed = true;
        } catch (FlowFailure failure) {
            result = failure.getMessage();
            passed = false;
        } catch (TimeoutException timeout) {
            result = "hung: " + timeout.getMessage();
            passed = false;
        } catch (Throwable error) {
            result = "exception: " + error;
            passed = false;
        }
        System.out.println("RESULT " + (passed ? "PASS " : "FAIL ") + result);
        System.out.flush();
        // The SDK leaves non-daemon threads (its executors) running: end the JVM here.
        Runtime.getRuntime().halt(passed ? 0 : 1);
    }

    /** A flow that ended with what the SDK reported, when it is not what the flow needs. */
    static final class FlowFailure extends Exception {
        FlowFailure(String message) { super(message); }
    }

    private String run(String flow) throws Exception {
        setUp();
        connect();
        switch (flow) {
            case "getinfo": return getInfo(sampleTags());
            case "getinfo-50": return getInfoInARow(50);
            case "pay-contact": return pay("APPROVED", null);
            case "pay-contactless": return pay("APPROVED", null);
            case "pay-declined": return pay("DECLINED", null);
            case "pay-app-choice": return pay("APPROVED", null);
            case "pay-online-pin": return payWithOnlinePin("PIN");
            case "pay-contactless-offline": return pay("APPROVED", null);
            case "pay-contactless-declined": return pay("DECLINED", null);
            case "pay-offline-pin": return pay("APPROVED", null);
            case "pay-contact-online-pin": return payWithOnlinePin(null);
            case "pay-unsupported-card": return pay("UNSUPPORTED_CARD", null);
            case "pay-refused-card": return pay("REFUSED_CARD", null);
            case "pay-card-removed": return pay("ERROR", null);
            case "pay-try-other-interface": return pay("NFC_OUTCOME_TRY_OTHER_INTERFACE", null);
            case "card-wait-recovery": return cardWaitWithRecovery();
            case "cancel": return cancelDuringCardWait();
            case "reconnect": return reconnect();
            case "steer-cards": return steerCards();
            case "mdm-register": return mdmRegister();
            case "mdm-config": return mdmRegister() + "; " + mdmGetConfig();
            case "mdm-check-update": return mdmRegister() + "; " + mdmCheckUpdate().summary;
            case "mdm-update": return mdmRegister() + "; " + mdmUpdate();
            case "mdm-send-logs": return mdmRegister() + "; " + mdmSendLogs();
            default: throw new FlowFailure("unknown flow " + flow);
        }
    }

    /** The SDK's log on standard error, exceptions included (UCUBE_HARNESS_VERBOSE=1). */
    static final class StandardErrorLogger implements com.youTransactor.uCube.log.ILogger {
        @Override public void d(String tag, String message) { System.err.println("[sdk D] " + tag + ": " + message); }
        @Override public void w(String tag, String message) { System.err.println("[sdk W] " + tag + ": " + message); }
        @Override public void e(String tag, String message, Exception error) {
            System.err.println("[sdk E] " + tag + ": " + message);
            if (error != null) error.printStackTrace(System.err);
        }
    }

    // MARK: Set-up, as the sample app does it

    private void setUp() {
        UCubeAPI.init(context);
        UCubeAPI.enableLogs(true);
        if ("1".equals(System.getenv("UCUBE_HARNESS_VERBOSE"))) {
            UCubeAPI.setLogLevel(com.youTransactor.uCube.log.LogManager.LogLevel.SYSTEM);  // every layer's log
            UCubeAPI.setupLogger(new StandardErrorLogger());
        }
        UCubeAPI.setYTmPOSProduct(YTMPOSProduct.uCube_touch);
        UCubeAPI.setConnexionManagerType(ConnectionService.ConnectionManagerType.SOCKET);
        UCubeAPI.getConnexionManager().setDevice(new UCubeDevice("uCubeTouch", address));
    }

    private void connect() throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        UCubeAPI.getConnexionManager().connect(15_000, 3, new ConnectionListener() {
            @Override public void onConnectionSuccess() { done.complete("connected"); }
            @Override public void onConnectionFailed(ConnectionStatus status, int error) {
                done.complete("connection failed: " + status + " " + error);
            }
            @Override public void onConnectionCancelled() { done.complete("connection cancelled"); }
        });
        String outcome = await(done, "connect");
        if (!outcome.equals("connected")) throw new FlowFailure(outcome);
    }

    private static <T> T await(CompletableFuture<T> future, String step) throws Exception {
        try {
            return future.get(STEP_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException timeout) {
            throw new TimeoutException(step + ": no callback from the SDK within " + STEP_SECONDS + " s");
        }
    }

    // MARK: GetInfo

    private static int[] sampleTags() {
        List<Integer> tags = new ArrayList<>();
        for (String name : SAMPLE_INFO_TAGS) {
            try {
                tags.add(Constants.class.getField(name).getInt(null));
            } catch (ReflectiveOperationException missing) {
                // This version of the SDK has no such constant: the sample of that version does not ask for it.
            }
        }
        return tags.stream().mapToInt(Integer::intValue).toArray();
    }

    /** GetInfo as the sample app sends it; the SDK's own DeviceInfos parses the answer. */
    private String getInfo(int[] tags) throws Exception {
        CompletableFuture<Object[]> done = new CompletableFuture<>();
        new GetInfosCommand(tags).execute((event, params) -> {
            if (event == TaskEvent.PROGRESS) return;
            done.complete(new Object[] {event, params.length > 0 ? params[0] : null});
        });
        Object[] outcome = await(done, "GetInfo");
        TaskEvent event = (TaskEvent) outcome[0];
        if (event != TaskEvent.SUCCESS) {
            throw new FlowFailure("GetInfo " + event + commandStatus(outcome[1]));
        }
        DeviceInfos infos = new DeviceInfos(((GetInfosCommand) outcome[1]).getResponseData());
        String serial = infos.getSerial();
        String partNumber = infos.getPartNumber();
        String line = "GetInfo SUCCESS" + commandStatus(outcome[1]) + ", serial " + serial + ", part number "
            + partNumber + ", SVPP " + infos.getSvppFirmware();
        if (partNumber == null || !partNumber.startsWith("uCubeT") || serial == null || !serial.matches("[0-9]+")) {
            throw new FlowFailure(line + " (serial and part number not read the right way round)");
        }
        return line;
    }

    private String getInfoInARow(int count) throws Exception {
        String last = "";
        for (int index = 1; index <= count; index++) {
            try {
                last = getInfo(sampleTags());
            } catch (FlowFailure failure) {
                throw new FlowFailure("GetInfo " + index + " of " + count + ": " + failure.getMessage());
            }
        }
        return count + " x " + last;
    }

    private static String commandStatus(Object command) {
        if (!(command instanceof RPCCommand)) return "";
        RPCCommand.ResponseStatus status = ((RPCCommand) command).getResponseStatus();
        return status.rpcState == RPCCommand.ResponseStatus.RPCState.OKAY ? " (status " + status.cmdStatus + ")"
            : " (no answer)";
    }

    // MARK: Payments

    /** The issuer approves: 8A "00". */
    static final class ApprovingIssuer implements IAuthorizationTask {
        private PaymentContext paymentContext;

        @Override public byte[] getAuthorizationResponse() { return new byte[] {(byte) 0x8A, 0x02, 0x30, 0x30}; }
        @Override public void execute(ITaskMonitor monitor) { monitor.handleEvent(TaskEvent.SUCCESS); }
        @Override public void cancel(ITaskCancelListener listener) { listener.onCancelFinish(true); }
        @Override public PaymentContext getContext() { return paymentContext; }
        @Override public void setContext(PaymentContext context) { paymentContext = context; }
    }

    private static UCubePaymentRequest request() {
        List<CardReaderType> readers = Arrays.asList(CardReaderType.ICC, CardReaderType.NFC);
        return new UCubePaymentRequest(1000, UCubePaymentRequest.CURRENCY_EUR, TransactionType.PURCHASE, readers,
            new ApprovingIssuer(), List.of("en"))
            .setCardWaitTimeout(30)
            .setTransactionDate(new Date());
    }

    private static final class PaymentRun implements UCubeLibPaymentServiceListener {
        final CompletableFuture<PaymentContext> finished = new CompletableFuture<>();
        final CompletableFuture<PaymentState> cardWait = new CompletableFuture<>();
        final List<PaymentState> states = new ArrayList<>();

        @Override public synchronized void onProgress(PaymentState state, PaymentContext context) {
            states.add(state);
            if (state == PaymentState.START_TRANSACTION || state == PaymentState.WAITING_CARD) cardWait.complete(state);
        }

        @Override public void onFinish(PaymentContext context) { finished.complete(context); }

        synchronized String steps() { return states.toString(); }

        /** The steps a reader of the result wants to see: the cardholder's choice, PIN entry, authorisation. */
        synchronized String notableSteps() {
            List<String> notable = new ArrayList<>();
            for (PaymentState state : states) {
                String name = state.name();
                if ((name.contains("PIN") || name.equals("SMC_USER_SELECT_APPLICATION") || name.equals("AUTHORIZATION"))
                    && !notable.contains(name)) {
                    notable.add(name);
                }
            }
            return notable.isEmpty() ? "" : ", steps " + String.join(" ", notable);
        }
    }

    private static String describe(PaymentContext context) {
        StringBuilder line = new StringBuilder("payment " + context.paymentStatus);
        line.append(String.format(", reader %02X", context.activatedReader));
        if (context.selectedApplication != null) {
            line.append(", application ").append(context.selectedApplication.getLabel());
        }
        return line.toString();
    }

    /** A payment that must end `expected`, after a step whose name contains `requiredStep` when one is given. */
    private String pay(String expected, String requiredStep) throws Exception {
        return pay(expected, requiredStep, null);
    }

    /** The same, read on `reader` when one is given. */
    private String pay(String expected, String requiredStep, CardReaderType reader) throws Exception {
        PaymentRun run = new PaymentRun();
        UCubeAPI.pay(request(), run);
        PaymentContext context = await(run.finished, "payment (states so far " + run.steps() + ")");
        String line = describe(context) + run.notableSteps();
        if (context.paymentStatus == null || !context.paymentStatus.name().equals(expected)) {
            throw new FlowFailure(line + ", expected " + expected + "; states " + run.steps());
        }
        if (reader != null && context.activatedReader != reader.getCode()) {
            throw new FlowFailure(line + String.format(", expected the %s reader (%02X)", reader, reader.getCode()));
        }
        if (requiredStep != null && !run.notableSteps().contains(requiredStep)) {
            throw new FlowFailure(line + ", but no " + requiredStep + " step; states " + run.steps());
        }
        return line;
    }

    /** The SRED tags the online-PIN flows ask for: the PAN and track 2 (docs/protocol.md §5.2 0x5025). */
    private static final int[] SECURED_TAGS = {0x5A, 0x57};

    /**
     * An online-PIN payment that must end APPROVED with what an app needs for its authorisation in the SDK's own
     * payment context: the PIN KSN and the enciphered PIN block (the contact flow reads them from TransactionProcess,
     * the contactless one from SimplifiedOnlinePIN: docs/protocol.md §5.2) and the SRED data it asked for. Only the
     * lengths are printed: a PIN block is never shown.
     */
    private String payWithOnlinePin(String requiredStep) throws Exception {
        PaymentRun run = new PaymentRun();
        UCubeAPI.pay(request().setAuthorizationSecuredTags(SECURED_TAGS), run);
        PaymentContext context = await(run.finished, "payment (states so far " + run.steps() + ")");
        String line = describe(context) + run.notableSteps() + ", PIN KSN " + size(context.pinKsn)
            + " bytes, PIN block " + size(context.onlinePinBlock) + " bytes, SRED data "
            + size(securedData(context)) + " bytes";
        if (context.paymentStatus == null || !context.paymentStatus.name().equals("APPROVED")) {
            throw new FlowFailure(line + ", expected APPROVED; states " + run.steps());
        }
        if (requiredStep != null && !run.notableSteps().contains(requiredStep)) {
            throw new FlowFailure(line + ", but no " + requiredStep + " step; states " + run.steps());
        }
        if (size(context.pinKsn) < 10 || size(context.onlinePinBlock) < 8) {
            throw new FlowFailure(line + ": the payment context lacks the PIN KSN or the PIN block");
        }
        if (size(securedData(context)) == 0) {
            throw new FlowFailure(line + ": the SRED data asked for did not arrive");
        }
        return line;
    }

    /**
     * The SRED data of the authorisation as the SDK received it: 3.5.13 keeps the GetSecuredTag answer in
     * `authorizationSecuredTagsValues`; 1.3.8.19 keeps it whole in `authorizationSecuredTagsResponse` (and its own TLV
     * reading of it, by tag, in `authorizationSecuredTagsValues`). Read by name: the two versions' fields differ.
     */
    private static Object securedData(PaymentContext context) {
        for (String name : new String[] {"authorizationSecuredTagsResponse", "authorizationSecuredTagsValues"}) {
            try {
                Object value = PaymentContext.class.getField(name).get(context);
                if (value instanceof byte[]) return value;
            } catch (ReflectiveOperationException absent) {
                // not a field of this version
            }
        }
        return null;
    }

    /** The length of a byte array, or the size of a map of them; 0 for null. */
    private static int size(Object value) {
        if (value instanceof byte[]) return ((byte[]) value).length;
        if (value instanceof java.util.Map) {
            int total = 0;
            for (Object item : ((java.util.Map<?, ?>) value).values()) total += size(item);
            return total;
        }
        return 0;
    }

    /**
     * A card that never comes, with the SDK's recovery mechanism asked for (it is on only in 1.3.8.19): after 9 s
     * without an answer the SDK asks GetStatus, hears "busy" and waits again, until the card wait's own timeout
     * answers -2 (docs/protocol.md §2.9). A wrong GetStatus answer would fail the StartNFC instead.
     */
    private String cardWaitWithRecovery() throws Exception {
        UCubeAPI.enableRecoveryMechanism(true);
        PaymentRun run = new PaymentRun();
        UCubeAPI.pay(request().setCardWaitTimeout(25), run);
        PaymentContext context = await(run.finished, "payment (states so far " + run.steps() + ")");
        String line = "recovery mechanism " + (UCubeAPI.isRecoveryMechanismEnabled() ? "on" : "off") + ", "
            + describe(context);
        if (context.paymentStatus == null || !context.paymentStatus.name().equals("CARD_WAIT_TIMEOUT")) {
            throw new FlowFailure(line + ", expected CARD_WAIT_TIMEOUT; states " + run.steps());
        }
        return line;
    }

    private String cancelDuringCardWait() throws Exception {
        PaymentRun run = new PaymentRun();
        PaymentService service = UCubeAPI.pay(request().setCardWaitTimeout(60), run);
        await(run.cardWait, "the card wait (states so far " + run.steps() + ")");
        Thread.sleep(500);  // the StartNFC is on the wire and waiting for a card
        CompletableFuture<Boolean> cancelled = new CompletableFuture<>();
        service.cancel(cancelled::complete);
        boolean cancelAnswer = await(cancelled, "the cancel");
        PaymentContext context = await(run.finished, "the cancelled payment");
        String line = "cancel " + cancelAnswer + ", " + describe(context);
        if (!cancelAnswer || context.paymentStatus == null || !context.paymentStatus.name().equals("CANCELLED")) {
            throw new FlowFailure(line + ", expected cancel true and CANCELLED; states " + run.steps());
        }
        return line + "; then " + getInfo(new int[] {0xC2, 0xC3, 0xD1});
    }

    // MARK: Steering the running simulator

    /**
     * The app stays connected while the simulated card changes (issue 40, "Done when"): `ucube sim card` between
     * payments, a chip card, a contactless one, then a card pulled out during the payment; each next payment shows
     * it, and the simulator counts one connection at the end.
     */
    private String steerCards() throws Exception {
        steer("card", "visa-contact");
        String chip = pay("APPROVED", null, CardReaderType.ICC);
        steer("card", "visa-contactless");
        String tap = pay("APPROVED", null, CardReaderType.NFC);
        steer("card", "card-removed");
        String pulled = pay("ERROR", null);
        String status = steer("status");
        java.util.regex.Matcher connections =
            java.util.regex.Pattern.compile("\"connections\"\\s*:\\s*(\\d+)").matcher(status);
        if (!connections.find() || !connections.group(1).equals("1")) {
            throw new FlowFailure("the app's connection did not stay: the simulator says " + status.replace('\n', ' '));
        }
        return "chip: " + chip + "; tap: " + tap + "; pulled out: " + pulled + "; one connection throughout";
    }

    /** `ucube sim --device tcp://ADDRESS --json WORDS…`: its JSON answer; a refusal fails the flow. */
    private String steer(String... words) throws Exception {
        List<String> command = new ArrayList<>(List.of(ucubeBinary(), "sim", "--device", "tcp://" + address, "--json"));
        command.addAll(Arrays.asList(words));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new FlowFailure("ucube sim " + String.join(" ", words) + " failed: " + output.trim());
        }
        return output;
    }

    private static String ucubeBinary() {
        String binary = System.getenv("UCUBE_BINARY");
        return binary == null || binary.isEmpty() ? "ucube" : binary;
    }

    // MARK: Reconnect

    private String reconnect() throws Exception {
        String first = getInfo(new int[] {0xC2, 0xC3, 0xD1});
        CompletableFuture<Boolean> closed = new CompletableFuture<>();
        UCubeAPI.getConnexionManager().disconnect(closed::complete);
        await(closed, "disconnect");
        // What the SDK asks of an app after a disconnection: set the type again (it registers the RPC listeners).
        setUp();
        connect();
        return first + "; disconnected, connected again; " + getInfo(new int[] {0xC2, 0xC3, 0xD1});
    }

    // MARK: MDM

    private static final class MDMRun implements UCubeLibMDMServiceListener {
        final CompletableFuture<Object[]> finished = new CompletableFuture<>();
        final List<ServiceState> states = new ArrayList<>();

        @Override public synchronized void onProgress(ServiceState state) { states.add(state); }

        @Override public void onFinish(boolean ok, Object... params) {
            Object[] outcome = new Object[params.length + 1];
            outcome[0] = ok;
            System.arraycopy(params, 0, outcome, 1, params.length);
            finished.complete(outcome);
        }

        synchronized String steps() { return states.toString(); }
    }

    private void mdmSetUp() throws Exception {
        AndroidPlatform.install();
        UCubeAPI.mdmSetup(context);
        MDMServices.changeServerUrl(context, tmsServer);
    }

    private String mdmRegister() throws Exception {
        mdmSetUp();
        MDMRun run = new MDMRun();
        UCubeAPI.mdmRegister(run);
        Object[] outcome = await(run.finished, "mdmRegister (states " + run.steps() + ")");
        boolean ready = UCubeAPI.isMdmManagerReady();
        String line = "register " + outcome[0] + ", MDM ready " + ready;
        if (!Boolean.TRUE.equals(outcome[0]) || !ready) throw new FlowFailure(line + "; states " + run.steps());
        return line;
    }

    private String mdmGetConfig() throws Exception {
        MDMRun run = new MDMRun();
        UCubeAPI.mdmGetConfig(run);
        Object[] outcome = await(run.finished, "mdmGetConfig (states " + run.steps() + ")");
        String line = "get config " + outcome[0] + ", " + count(outcome, 1) + " config items";
        if (!Boolean.TRUE.equals(outcome[0])) throw new FlowFailure(line + "; states " + run.steps());
        return line;
    }

    private static final class CheckResult {
        final String summary;
        final List<?> updates;

        CheckResult(String summary, List<?> updates) {
            this.summary = summary;
            this.updates = updates;
        }
    }

    private CheckResult mdmCheckUpdate() throws Exception {
        MDMRun run = new MDMRun();
        UCubeAPI.mdmCheckUpdate(true, false, run);
        Object[] outcome = await(run.finished, "mdmCheckUpdate (states " + run.steps() + ")");
        String line = "check update " + outcome[0] + ", " + count(outcome, 1) + " config items, " + count(outcome, 2)
            + " updates";
        if (!Boolean.TRUE.equals(outcome[0])) throw new FlowFailure(line + "; states " + run.steps());
        List<?> updates = outcome.length > 2 && outcome[2] instanceof List ? (List<?>) outcome[2] : List.of();
        return new CheckResult(line, updates);
    }

    @SuppressWarnings("unchecked")
    private String mdmUpdate() throws Exception {
        CheckResult check = mdmCheckUpdate();
        if (check.updates.isEmpty()) throw new FlowFailure(check.summary + ": nothing to update");
        MDMRun run = new MDMRun();
        UCubeAPI.mdmUpdate((List<com.youTransactor.uCube.mdm.BinaryUpdate>) check.updates, run);
        Object[] outcome = await(run.finished, "mdmUpdate (states " + run.steps() + ")");
        String line = check.summary + "; update " + outcome[0];
        if (!Boolean.TRUE.equals(outcome[0])) throw new FlowFailure(line + "; states " + run.steps());
        // The terminal rebooted into the new firmware and the SDK connected again: what does it read now?
        return line + "; then " + getInfo(new int[] {0xC2, 0xC3, 0xD1});
    }

    private String mdmSendLogs() throws Exception {
        MDMRun run = new MDMRun();
        UCubeAPI.mdmSendLogs(run);
        Object[] outcome = await(run.finished, "mdmSendLogs (states " + run.steps() + ")");
        String line = "send logs " + outcome[0];
        if (!Boolean.TRUE.equals(outcome[0])) throw new FlowFailure(line + "; states " + run.steps());
        return line;
    }

    private static String count(Object[] outcome, int index) {
        if (outcome.length <= index || !(outcome[index] instanceof List)) return "no";
        return String.valueOf(((List<?>) outcome[index]).size());
    }
}
