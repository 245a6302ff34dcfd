import { PageTitle } from '../components/ui';

export default function Billing() {
  return <PageTitle>Billing</PageTitle>;
}
