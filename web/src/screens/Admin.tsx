import { PageTitle } from '../components/ui';

export default function Admin() {
  return <PageTitle>Admin</PageTitle>;
}
