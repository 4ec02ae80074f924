import { Layout, Notice } from "../layout.tsx";

export function SignInPage(props: { failed: boolean; unavailable?: boolean; weak?: boolean; blocked?: boolean }) {
  return (
    <Layout title="Sign in" signedIn={false}>
      <h1>Sign in</h1>
      {props.unavailable ? (
        <Notice
          bad
          text={
            props.weak
              ? "ADMIN_TOKEN is too short: the console stays closed until it has at least 32 characters (e.g. openssl rand -hex 32)."
              : "The console needs ADMIN_TOKEN to be set (a Worker secret)."
          }
        />
      ) : (
        <>
          <Notice
            bad
            text={
              props.blocked
                ? "Too many wrong tokens from here: try again in a minute."
                : props.failed
                  ? "That is not the admin token."
                  : undefined
            }
          />
          <form method="post" action="/console/sign-in">
            <label for="token">Admin token</label>
            <input id="token" name="token" type="password" autocomplete="current-password" required />
            <p>
              <button type="submit">Sign in</button>
            </p>
            <p class="hint">The ADMIN_TOKEN secret. It is exchanged for a signed session cookie and not stored.</p>
          </form>
        </>
      )}
    </Layout>
  );
}
