import { PageTitle } from '../../components/ui';

export default function PositionNew() {
  return <PageTitle>PositionNew</PageTitle>;
}
