import { PageTitle } from '../components/ui';

export default function Accounts() {
  return <PageTitle>Accounts</PageTitle>;
}
