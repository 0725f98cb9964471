package ucube.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ProtocolException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.security.InvalidAlgorithmParameterException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.Security;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.util.List;
import java.util.Map;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.KeyManagerFactorySpi;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocketFactory;

/**
 * Two differences between Android's platform and the JDK's that the vendor SDK's MDM code relies on, bridged for the
 * harness (written for ucube; not Android's code):
 * <ul>
 * <li>On Android a POST may write its body without setDoOutput(true) (its OkHttp-based connection gives any method
 *     that permits a body a request body); the JDK throws "cannot write to a URLConnection if doOutput=false".
 *     Every https connection of the JVM becomes the JDK's own, wrapped so that getOutputStream() sets doOutput
 *     first. TLS, trust, headers and status stay the JDK's.</li>
 * <li>Android names its key-manager factory "X509"; the JDK's is "SunX509". A provider maps the one to the other,
 *     so that the SDK's client certificate (the PKCS#12 the TMS issued at register) is presented.</li>
 * </ul>
 */
final class AndroidPlatform {
    private AndroidPlatform() {}

    private static boolean installed;

    /** Android's "X509" key-manager factory: the JDK's SunX509. */
    public static final class X509KeyManagerFactory extends KeyManagerFactorySpi {
        private final KeyManagerFactory jdk;

        public X509KeyManagerFactory() throws NoSuchAlgorithmException { jdk = KeyManagerFactory.getInstance("SunX509"); }

        @Override protected void engineInit(KeyStore store, char[] password)
            throws KeyStoreException, NoSuchAlgorithmException, UnrecoverableKeyException {
            jdk.init(store, password);
        }

        @Override protected void engineInit(ManagerFactoryParameters parameters)
            throws InvalidAlgorithmParameterException {
            jdk.init(parameters);
        }

        @Override protected KeyManager[] engineGetKeyManagers() { return jdk.getKeyManagers(); }
    }

    static synchronized void install() throws IOException {
        if (installed) return;
        Provider android = new Provider("UCubeHarnessAndroid", "1.0", "Android's algorithm names on the JDK") {};
        android.put("KeyManagerFactory.X509", X509KeyManagerFactory.class.getName());
        Security.addProvider(android);
        // A URL made before the factory holds the JDK's https handler; new URL(context, spec) reuses it.
        final URL jdkHttps = new URL("https://localhost/");
        URL.setURLStreamHandlerFactory(protocol -> !"https".equals(protocol) ? null : new URLStreamHandler() {
            @Override protected URLConnection openConnection(URL url) throws IOException {
                return new Connection(url, (HttpsURLConnection) new URL(jdkHttps, url.toString()).openConnection());
            }
        });
        installed = true;
    }

    /** The JDK's connection, with Android's getOutputStream(). */
    static final class Connection extends HttpsURLConnection {
        private final HttpsURLConnection jdk;

        Connection(URL url, HttpsURLConnection jdk) {
            super(url);
            this.jdk = jdk;
        }

        @Override public OutputStream getOutputStream() throws IOException {
            if (!jdk.getDoOutput()) jdk.setDoOutput(true);
            return jdk.getOutputStream();
        }

        @Override public void connect() throws IOException { jdk.connect(); }
        @Override public void disconnect() { jdk.disconnect(); }
        @Override public boolean usingProxy() { return jdk.usingProxy(); }
        @Override public String getCipherSuite() { return jdk.getCipherSuite(); }
        @Override public Certificate[] getLocalCertificates() { return jdk.getLocalCertificates(); }
        @Override public Certificate[] getServerCertificates() throws SSLPeerUnverifiedException {
            return jdk.getServerCertificates();
        }
        @Override public void setSSLSocketFactory(SSLSocketFactory factory) { jdk.setSSLSocketFactory(factory); }
        @Override public SSLSocketFactory getSSLSocketFactory() { return jdk.getSSLSocketFactory(); }
        @Override public void setHostnameVerifier(HostnameVerifier verifier) { jdk.setHostnameVerifier(verifier); }
        @Override public HostnameVerifier getHostnameVerifier() { return jdk.getHostnameVerifier(); }
        @Override public void setRequestMethod(String method) throws ProtocolException { jdk.setRequestMethod(method); }
        @Override public String getRequestMethod() { return jdk.getRequestMethod(); }
        @Override public void setConnectTimeout(int timeout) { jdk.setConnectTimeout(timeout); }
        @Override public int getConnectTimeout() { return jdk.getConnectTimeout(); }
        @Override public void setReadTimeout(int timeout) { jdk.setReadTimeout(timeout); }
        @Override public int getReadTimeout() { return jdk.getReadTimeout(); }
        @Override public void setDoOutput(boolean output) { jdk.setDoOutput(output); }
        @Override public boolean getDoOutput() { return jdk.getDoOutput(); }
        @Override public void setDoInput(boolean input) { jdk.setDoInput(input); }
        @Override public boolean getDoInput() { return jdk.getDoInput(); }
        @Override public void setUseCaches(boolean caches) { jdk.setUseCaches(caches); }
        @Override public void setInstanceFollowRedirects(boolean follow) { jdk.setInstanceFollowRedirects(follow); }
        @Override public void setRequestProperty(String key, String value) { jdk.setRequestProperty(key, value); }
        @Override public void addRequestProperty(String key, String value) { jdk.addRequestProperty(key, value); }
        @Override public String getRequestProperty(String key) { return jdk.getRequestProperty(key); }
        @Override public Map<String, List<String>> getRequestProperties() { return jdk.getRequestProperties(); }
        @Override public InputStream getInputStream() throws IOException { return jdk.getInputStream(); }
        @Override public InputStream getErrorStream() { return jdk.getErrorStream(); }
        @Override public int getResponseCode() throws IOException { return jdk.getResponseCode(); }
        @Override public String getResponseMessage() throws IOException { return jdk.getResponseMessage(); }
        @Override public String getHeaderField(String name) { return jdk.getHeaderField(name); }
        @Override public String getHeaderField(int index) { return jdk.getHeaderField(index); }
        @Override public String getHeaderFieldKey(int index) { return jdk.getHeaderFieldKey(index); }
        @Override public Map<String, List<String>> getHeaderFields() { return jdk.getHeaderFields(); }
        @Override public String getContentType() { return jdk.getContentType(); }
        @Override public int getContentLength() { return jdk.getContentLength(); }
        @Override public long getContentLengthLong() { return jdk.getContentLengthLong(); }
    }
}
