import { PageTitle } from '../components/ui';

export default function Brokerages() {
  return <PageTitle>Brokerages</PageTitle>;
}
