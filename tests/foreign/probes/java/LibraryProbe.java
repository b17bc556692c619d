// One GET per argument ("name=url") with OkHttp 5 and Apache HttpClient 5 (classic), each failure printed the three
// ways Java MCP servers put it into a tool error: "<client>/<name>" is e.toString(), "<client>_chain/<name>" adds each
// cause as a "Caused by: " line (printStackTrace's lines without the frames), "<client>_msg/<name>" is e.getMessage()
// alone (Spring AI's DefaultToolExecutionExceptionProcessor, and "Error: " + e.getMessage() tools). One JSON object on
// stdout. argv: timeout_ms name=url ...
//
// Timeouts are each client's connect and read timeouts. Neither client fails on a status: OkHttp's is the wrapper of
// its own recipes (`throw new IOException("Unexpected code " + response)`), Apache's its BasicHttpClientResponseHandler
// (HttpResponseException "status code: 404, reason phrase: Not Found"). Apache's automatic retries are off: its
// default strategy would wait out the upstream's Retry-After (7 s) on a 429/503 and repeat; the text is the same.
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.BasicHttpClientResponseHandler;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.util.Timeout;

public class LibraryProbe {
    interface Get {
        void get(String url) throws Exception;
    }

    static void put(Map<String, String> out, String client, String name, Throwable e) {
        StringBuilder chain = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            chain.append(t == e ? "" : "\nCaused by: ").append(t.toString());
        }
        synchronized (out) {
            out.put(client + "/" + name, e == null ? null : e.toString());
            out.put(client + "_chain/" + name, e == null ? null : chain.toString());
            out.put(client + "_msg/" + name, e == null ? null : String.valueOf(e.getMessage()));
        }
    }

    public static void main(String[] args) throws Exception {
        // Both clients look the same name up at once, and the JDK's cached failure (InetAddress's negative cache,
        // 10 s) is an UnknownHostException whose message is the host alone: which client got the resolver's own
        // text ("upstream.invalid: Name or service not known") was a race. Each lookup goes to the resolver.
        java.security.Security.setProperty("networkaddress.cache.negative.ttl", "0");
        long ms = Long.parseLong(args[0]);
        OkHttpClient okhttp = new OkHttpClient.Builder().connectTimeout(ms, TimeUnit.MILLISECONDS)
                .readTimeout(ms, TimeUnit.MILLISECONDS).build();
        Timeout timeout = Timeout.ofMilliseconds(ms);
        CloseableHttpClient apache = HttpClients.custom().disableAutomaticRetries()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setDefaultConnectionConfig(ConnectionConfig.custom().setConnectTimeout(timeout)
                                .setSocketTimeout(timeout).build()).build())
                .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(timeout).build()).build();
        Map<String, Get> clients = Map.of(
                "okhttp", url -> {
                    try (Response response = okhttp.newCall(new Request.Builder().url(url).build()).execute()) {
                        if (!response.isSuccessful()) throw new IOException("Unexpected code " + response);
                        response.body().string();
                    }
                },
                "apache", url -> apache.execute(new HttpGet(URI.create(url)), new BasicHttpClientResponseHandler()));
        Map<String, String> out = new TreeMap<>();
        ExecutorService pool = Executors.newCachedThreadPool();
        for (int i = 1; i < args.length; i++) {
            String name = args[i].substring(0, args[i].indexOf('='));
            String url = args[i].substring(args[i].indexOf('=') + 1);
            for (Map.Entry<String, Get> client : clients.entrySet()) {
                pool.submit(() -> {
                    Throwable failure = null;
                    try {
                        client.getValue().get(url);
                    } catch (Exception e) {
                        failure = e;
                    }
                    put(out, client.getKey(), name, failure);
                });
            }
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, String> entry : out.entrySet()) {
            if (b.length() > 1) b.append(", ");
            b.append(Probe.json(entry.getKey())).append(": ").append(Probe.json(entry.getValue()));
        }
        System.out.println(b.append('}'));
        System.exit(0);  // OkHttp's and Apache's pools keep non-daemon threads a while
    }
}
