import { PageTitle } from '../../components/ui';

export default function PositionsList() {
  return <PageTitle>PositionsList</PageTitle>;
}
