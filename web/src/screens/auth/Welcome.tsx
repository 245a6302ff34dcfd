import { Link } from 'react-router';
import { usePublicConfig } from '../../api/queries';

/** Welcome is the first screen of a visitor without a session: what this is, and the way in. */
export default function Welcome() {
  const config = usePublicConfig();
  const open = config.data?.registrationOpen !== false;
  return (
    <section className="auth-card welcome" aria-labelledby="welcome-title">
      <h1 id="welcome-title">Welcome to Trade Journal</h1>
      <p>
        Your own record of every trade: accounts, positions and their fills, your broker&apos;s history imported from a CSV file, a position-size
        calculator, and your results in one currency. It runs on this server; your journal stays here.
      </p>
      <ol className="welcome-steps">
        <li>Create your account.</li>
        <li>Add a trading account with its currency and starting balance.</li>
        <li>Import your broker&apos;s CSV file, or record a trade by hand.</li>
      </ol>
      <div className="welcome-actions">
        {open ? (
          <Link to="/signup" className="button">
            Create your account
          </Link>
        ) : (
          <p className="note">This Trade Journal is not taking new accounts right now.</p>
        )}
        <p className="hint">Once you are in, you can load a demo journal of sample trades to look around, and remove it in one click.</p>
        <p>
          Already have an account?{' '}
          <Link to="/signin">Sign in</Link>
        </p>
      </div>
    </section>
  );
}
