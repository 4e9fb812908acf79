import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="panel">
      <div className="state">
        <h1>Page not found</h1>
        <p>There is nothing at this address.</p>
        <Link className="button primary" href="/">
          Go to the Nginx list
        </Link>
      </div>
    </div>
  );
}
